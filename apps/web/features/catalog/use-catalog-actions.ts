"use client";

import { type QueryKey, useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { useConfirm } from "@/ui";

/** What differs between the catalog's two resources (autousers, templates); the behaviour around it is shared. */
export interface CatalogResource<Row extends { id: string }> {
  /** "autouser", "template": said in the confirmation. */
  noun: string;
  /** "/autousers": the copy opens at `${path}/${id}`. */
  path: string;
  duplicate: (id: string) => Promise<Row>;
  remove: (id: string) => Promise<{ id: string }>;
  itemKey: (id: string) => QueryKey;
  listKey: QueryKey;
}

/** Duplicate and delete, for the list and the detail page. A refused delete keeps the server's reason. */
export function useCatalogActions<Row extends { id: string }>(
  resource: CatalogResource<Row>,
  { afterDelete }: { afterDelete?: () => void } = {},
) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const [error, setError] = useState<string | null>(null);

  const duplicate = useMutation({
    mutationFn: resource.duplicate,
    onSuccess: async (copy) => {
      setError(null);
      queryClient.setQueryData(resource.itemKey(copy.id), copy);
      await queryClient.invalidateQueries({ queryKey: resource.listKey });
      router.push(`${resource.path}/${copy.id}`);
    },
    onError: (e) => setError(errorMessage(e)),
  });
  const remove = useMutation({
    mutationFn: resource.remove,
    onSuccess: async ({ id }) => {
      setError(null);
      queryClient.removeQueries({ queryKey: resource.itemKey(id) });
      await queryClient.invalidateQueries({ queryKey: resource.listKey });
      afterDelete?.();
    },
    onError: (e) => setError(errorMessage(e)),
  });

  return {
    error,
    pending: duplicate.isPending || remove.isPending,
    duplicate: (id: string) => duplicate.mutate(id),
    remove: async (id: string, name: string) => {
      const ok = await confirm({
        message: `Delete the ${resource.noun} “${name}”? This cannot be undone.`,
        confirmLabel: "Delete",
        destructive: true,
      });
      if (ok) remove.mutate(id);
    },
  };
}

export type CatalogActions = ReturnType<typeof useCatalogActions>;
