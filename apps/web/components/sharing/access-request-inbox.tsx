"use client";

import type { SharePermission } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { FormError, PageHeader } from "@/ui";

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
      <FormError error={inbox.error} />
      {inbox.data && inbox.data.data.length === 0 && <p className="muted empty">No pending requests.</p>}
      {(inbox.data?.data.length ?? 0) > 0 && (
        <section className="card table-card">
          <table className="table">
            <thead>
              <tr>
                <th>Who</th>
                <th>Evaluation</th>
                <th>Message</th>
                <th>Asked</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {inbox.data!.data.map((r) => (
                <tr key={r.id} data-testid="access-request">
                  <td>
                    {r.requester.name ?? r.requester.email}
                    <div className="muted small">{r.requester.email}</div>
                  </td>
                  <td>
                    <Link href={`/evaluations/${r.evaluationId}`}>{r.evaluationName}</Link>
                  </td>
                  <td>{r.message ?? <span className="muted">—</span>}</td>
                  <td className="nowrap">{formatDateTime(r.createdAt)}</td>
                  <td className="row-actions">
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
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </div>
  );
}
