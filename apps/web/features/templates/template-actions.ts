"use client";

import { type CatalogResource, useCatalogActions } from "@/features/catalog";
import { type RouterOutputs, useTRPC, useTRPCClient } from "@/lib/trpc";

type Template = RouterOutputs["templates"]["get"];

/** Duplicate and delete a template, shared by the list and the detail page. */
export function useTemplateActions(options: { afterDelete?: () => void } = {}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const resource: CatalogResource<Template> = {
    noun: "template",
    path: "/templates",
    duplicate: (id) => client.templates.duplicate.mutate({ id }),
    remove: (id) => client.templates.delete.mutate({ id }),
    itemKey: (id) => trpc.templates.get.queryKey({ id }),
    listKey: trpc.templates.list.pathKey(),
  };
  return useCatalogActions(resource, options);
}
