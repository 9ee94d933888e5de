"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { CatalogName, CatalogRowActions, CatalogUpdated } from "@/features/catalog";
import { formatScale, TEMPLATE_TYPE_LABELS } from "@/lib/templates";
import { useTRPC } from "@/lib/trpc";
import { DataTable, FormError, PageHeader, QueryState } from "@/ui";
import { useTemplateActions } from "./template-actions";

export function TemplateList() {
  const trpc = useTRPC();
  const list = useQuery(trpc.templates.list.queryOptions({ limit: 100 }));
  const actions = useTemplateActions();

  return (
    <>
      <PageHeader
        title="Templates"
        description="The scales and guidelines raters score designs against."
        actions={
          <Link href="/templates/new" className="button button-primary">
            New template
          </Link>
        }
      />

      <FormError error={actions.error} />
      <QueryState query={list} loading="Loading templates…">
        {(page) => (
          <DataTable
            caption="Templates"
            rows={page.data}
            rowKey={(t) => t.id}
            columns={[
              { header: "Name", cell: (t) => <CatalogName row={t} path="/templates" /> },
              {
                header: "Type",
                cell: (t) => (
                  <span className="type-tag" title={TEMPLATE_TYPE_LABELS[t.type]}>
                    {t.type}
                  </span>
                ),
              },
              { header: "Scale", cell: (t) => formatScale(t), className: "nowrap" },
              { header: "Version", cell: (t) => t.version, numeric: true },
              { header: "Updated", cell: (t) => <CatalogUpdated row={t} /> },
              {
                header: <span className="visually-hidden">Actions</span>,
                cell: (t) => <CatalogRowActions row={t} path="/templates" actions={actions} />,
                className: "actions nowrap",
              },
            ]}
          />
        )}
      </QueryState>
      {list.data?.has_more && <p className="muted small">Showing the 100 most recently updated templates.</p>}
    </>
  );
}
