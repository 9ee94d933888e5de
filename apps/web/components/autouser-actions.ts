"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { useTRPC } from "@/lib/trpc";
import { useConfirm } from "@/ui/confirm-dialog";

/** Duplicate and delete, shared by the list and the detail page; a refused delete keeps the server's reason. */
export function useAutouserActions({ afterDelete }: { afterDelete?: () => void } = {}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const [error, setError] = useState<string | null>(null);

  const duplicate = useMutation(
    trpc.autousers.duplicate.mutationOptions({
      onSuccess: async (copy) => {
        setError(null);
        queryClient.setQueryData(trpc.autousers.get.queryKey({ id: copy.id }), copy);
        await queryClient.invalidateQueries(trpc.autousers.list.pathFilter());
        router.push(`/autousers/${copy.id}`);
      },
      onError: (e) => setError(errorMessage(e)),
    }),
  );
  const remove = useMutation(
    trpc.autousers.delete.mutationOptions({
      onSuccess: async ({ id }) => {
        setError(null);
        queryClient.removeQueries(trpc.autousers.get.queryFilter({ id }));
        await queryClient.invalidateQueries(trpc.autousers.list.pathFilter());
        afterDelete?.();
      },
      onError: (e) => setError(errorMessage(e)),
    }),
  );

  return {
    error,
    pending: duplicate.isPending || remove.isPending,
    duplicate: (id: string) => duplicate.mutate({ id }),
    remove: async (id: string, name: string) => {
      const ok = await confirm({
        message: `Delete the autouser “${name}”? This cannot be undone.`,
        confirmLabel: "Delete",
        destructive: true,
      });
      if (!ok) return;
      remove.mutate({ id });
    },
  };
}
