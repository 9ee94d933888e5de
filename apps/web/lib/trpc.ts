"use client";

import type { AppRouter } from "@rubricon/api";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import type { inferRouterOutputs } from "@trpc/server";
import { createTRPCContext } from "@trpc/tanstack-react-query";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export type RouterOutputs = inferRouterOutputs<AppRouter>;

export function createApiClient() {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: "/api/trpc",
        // The API refuses batches of more than 10 calls.
        maxItems: 10,
        fetch: (url, init) => fetch(url, { ...init, credentials: "same-origin" }),
      }),
    ],
  });
}
