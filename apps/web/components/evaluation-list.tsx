"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { StatusBadge } from "@/components/status-badge";
import { errorMessage } from "@/lib/errors";
import { formatDateTime, formatRelative } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { PageHeader } from "@/ui/page-header";

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

      {list.isPending && <p className="muted">Loading evaluations…</p>}
      {list.isError && (
        <p className="alert alert-error" role="alert">
          {errorMessage(list.error)}
        </p>
      )}
      {list.data && list.data.data.length === 0 && (
        <div className="empty">
          <h2>No evaluations yet</h2>
          <p className="muted">
            Create one to start collecting ratings on a design or compare two side by side.
          </p>
          <Link href="/evaluations/new" className="button button-primary">
            New evaluation
          </Link>
        </div>
      )}
      {list.data && list.data.data.length > 0 && (
        <div className="card table-card">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Comparisons
                </th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((evaluation) => (
                <tr key={evaluation.id}>
                  <td>
                    <Link href={`/evaluations/${evaluation.id}`} className="row-link">
                      {evaluation.name}
                    </Link>
                    {evaluation.sharedWithYou && <span className="chip">Shared with you</span>}
                  </td>
                  <td>
                    <span className="type-tag" title={TYPE_LABELS[evaluation.type]}>
                      {evaluation.type}
                    </span>
                  </td>
                  <td>
                    <StatusBadge status={evaluation.status} />
                  </td>
                  <td className="num">{evaluation.comparisonCount}</td>
                  <td>
                    <time dateTime={evaluation.updatedAt} title={formatDateTime(evaluation.updatedAt)}>
                      {formatRelative(evaluation.updatedAt)}
                    </time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data?.has_more && (
        <p className="muted small">Showing the 100 most recently updated evaluations.</p>
      )}
    </>
  );
}
