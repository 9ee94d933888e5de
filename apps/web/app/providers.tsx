"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { isUnauthenticated } from "@/lib/errors";
import { createApiClient, TRPCProvider } from "@/lib/trpc";
import { ConfirmProvider } from "@/ui/confirm-dialog";

function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        // An expired session will not fix itself; retrying only delays the redirect to sign-in.
        retry: (failureCount, error) => failureCount < 2 && !isUnauthenticated(error),
      },
    },
  });
}

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(createApiClient);
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <ConfirmProvider>{children}</ConfirmProvider>
      </TRPCProvider>
    </QueryClientProvider>
  );
}
