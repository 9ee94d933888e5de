"use client";

import type { SharePermission } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { ACTIONS_HEADER, DataTable, FormError, PageHeader, QueryState } from "@/ui";

/** Pending requests to the evaluations of the user's teams, each approved (with a permission) or declined. */
export function AccessRequestInbox() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const inbox = useQuery(trpc.accessRequests.inbox.queryOptions({ limit: 100 }));
  const [error, setError] = useState<string | null>(null);
  const [permission, setPermission] = useState<Record<string, SharePermission>>({});
  const done = async () => {
    setError(null);
    await queryClient.invalidateQueries(trpc.accessRequests.pathFilter());
  };
  const approve = useMutation(
    trpc.accessRequests.approve.mutationOptions({
      onSuccess: done,
      onError: (e) => setError(errorMessage(e)),
    }),
  );
  const decline = useMutation(
    trpc.accessRequests.decline.mutationOptions({
      onSuccess: done,
      onError: (e) => setError(errorMessage(e)),
    }),
  );

  return (
    <div className="stack">
      <PageHeader title="Access requests" />
      <FormError error={error} />
      <QueryState
        query={inbox}
        loading="Loading requests…"
        isEmpty={(page) => page.data.length === 0}
        empty={<p className="muted empty">No pending requests.</p>}
      >
        {(page) => (
          <DataTable
            rows={page.data}
            rowKey={(r) => r.id}
            rowProps={() => ({ "data-testid": "access-request" })}
            columns={[
              {
                header: "Who",
                cell: (r) => (
                  <>
                    {r.requester.name ?? r.requester.email}
                    <div className="muted small">{r.requester.email}</div>
                  </>
                ),
              },
              {
                header: "Evaluation",
                cell: (r) => <Link href={`/evaluations/${r.evaluationId}`}>{r.evaluationName}</Link>,
              },
              { header: "Message", cell: (r) => r.message ?? <span className="muted">—</span> },
              { header: "Asked", className: "nowrap", cell: (r) => formatDateTime(r.createdAt) },
              {
                header: ACTIONS_HEADER,
                className: "row-actions",
                cell: (r) => (
                  <>
                    <label className="visually-hidden" htmlFor={`grant-${r.id}`}>
                      Permission for {r.requester.email}
                    </label>
                    <select
                      id={`grant-${r.id}`}
                      value={permission[r.id] ?? "VIEWER"}
                      onChange={(e) =>
                        setPermission({ ...permission, [r.id]: e.target.value as SharePermission })
                      }
                    >
                      <option value="VIEWER">Viewer</option>
                      <option value="EDITOR">Editor</option>
                      <option value="OWNER">Owner</option>
                    </select>
                    <button
                      type="button"
                      className="button button-primary"
                      aria-label={`Approve ${r.requester.email}`}
                      disabled={approve.isPending}
                      onClick={() =>
                        approve.mutate({
                          id: r.evaluationId,
                          requestId: r.id,
                          permission: permission[r.id] ?? "VIEWER",
                        })
                      }
                    >
                      Approve
                    </button>
                    <button
                      type="button"
                      className="button"
                      aria-label={`Decline ${r.requester.email}`}
                      disabled={decline.isPending}
                      onClick={() => decline.mutate({ id: r.evaluationId, requestId: r.id })}
                    >
                      Decline
                    </button>
                  </>
                ),
              },
            ]}
          />
        )}
      </QueryState>
    </div>
  );
}
