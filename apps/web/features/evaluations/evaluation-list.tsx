"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { formatDateTime, formatRelative } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { DataTable, PageHeader, QueryState } from "@/ui";
import { StatusBadge } from "./status-badge";

const TYPE_LABELS = { SSE: "Single design", SxS: "Side by side" } as const;

export function EvaluationList() {
  const trpc = useTRPC();
  const list = useQuery(trpc.evaluations.list.queryOptions({ limit: 100 }));

  return (
    <>
      <PageHeader
        title="Evaluations"
        description="Designs people and autousers rate against your rubric."
        actions={
          <Link href="/evaluations/new" className="button button-primary">
            New evaluation
          </Link>
        }
      />

      <QueryState
        query={list}
        loading="Loading evaluations…"
        isEmpty={(page) => page.data.length === 0}
        empty={
          <div className="empty">
            <h2>No evaluations yet</h2>
            <p className="muted">
              Create one to start collecting ratings on a design or compare two side by side.
            </p>
            <Link href="/evaluations/new" className="button button-primary">
              New evaluation
            </Link>
          </div>
        }
      >
        {(page) => (
          <DataTable
            caption="Evaluations"
            rows={page.data}
            rowKey={(e) => e.id}
            columns={[
              {
                header: "Name",
                cell: (e) => (
                  <>
                    <Link href={`/evaluations/${e.id}`} className="row-link">
                      {e.name}
                    </Link>
                    {e.sharedWithYou && <span className="chip">Shared with you</span>}
                  </>
                ),
              },
              {
                header: "Type",
                cell: (e) => (
                  <span className="type-tag" title={TYPE_LABELS[e.type]}>
                    {e.type}
                  </span>
                ),
              },
              { header: "Status", cell: (e) => <StatusBadge status={e.status} /> },
              { header: "Comparisons", numeric: true, cell: (e) => e.comparisonCount },
              {
                header: "Updated",
                cell: (e) => (
                  <time dateTime={e.updatedAt} title={formatDateTime(e.updatedAt)}>
                    {formatRelative(e.updatedAt)}
                  </time>
                ),
              },
            ]}
          />
        )}
      </QueryState>
      {list.data?.has_more && (
        <p className="muted small">Showing the 100 most recently updated evaluations.</p>
      )}
    </>
  );
}
