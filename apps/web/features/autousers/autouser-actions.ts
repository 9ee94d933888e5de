"use client";

import { type CatalogResource, useCatalogActions } from "@/features/catalog";
import { type RouterOutputs, useTRPC, useTRPCClient } from "@/lib/trpc";

type Autouser = RouterOutputs["autousers"]["get"];

/** Duplicate and delete an autouser, shared by the list and the detail page. */
export function useAutouserActions(options: { afterDelete?: () => void } = {}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const resource: CatalogResource<Autouser> = {
    noun: "autouser",
    path: "/autousers",
    duplicate: (id) => client.autousers.duplicate.mutate({ id }),
    remove: (id) => client.autousers.delete.mutate({ id }),
    itemKey: (id) => trpc.autousers.get.queryKey({ id }),
    listKey: trpc.autousers.list.pathKey(),
  };
  return useCatalogActions(resource, options);
}
