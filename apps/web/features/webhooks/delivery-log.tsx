"use client";

import { WEBHOOK_DELIVERY_STATUSES, type WebhookDeliveryStatus } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { formatDateTime, formatRelative } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { DataTable, Field, FormError, Loading, QueryState } from "@/ui";
import { WebhookStatus } from "./status";
import styles from "./webhooks.module.css";

/** The endpoint's deliveries, newest first, refreshed while any is still on its way. */
export function DeliveryLog({ endpointId }: { endpointId: string }) {
  const trpc = useTRPC();
  const [status, setStatus] = useState<WebhookDeliveryStatus | "">("");
  const [open, setOpen] = useState<string | null>(null);
  const deliveries = useQuery({
    ...trpc.webhooks.deliveries.list.queryOptions({
      id: endpointId,
      limit: 50,
      ...(status ? { status } : {}),
    }),
    refetchInterval: (query) =>
      query.state.data?.data.some((d) => d.status === "pending" || d.status === "retrying") ? 1500 : 10_000,
  });

  return (
    <section className="card stack" aria-labelledby="deliveries-heading">
      <div className="section-head">
        <h2 id="deliveries-heading">Deliveries</h2>
        <Field id="delivery-status" label="Status">
          {(props) => (
            <select
              {...props}
              value={status}
              onChange={(e) => setStatus(e.target.value as WebhookDeliveryStatus | "")}
            >
              <option value="">All</option>
              {WEBHOOK_DELIVERY_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <QueryState
        query={deliveries}
        loading="Loading deliveries…"
        isEmpty={(page) => page.data.length === 0}
        empty={<p className="muted">No deliveries yet. Send a test event to try the endpoint.</p>}
      >
        {(page) => (
          <DataTable
            bare
            label="Deliveries"
            rows={page.data}
            rowKey={(d) => d.id}
            rowProps={(d) => ({ "data-delivery-id": d.id })}
            detail={(d) => open === d.id && <DeliveryAttempts endpointId={endpointId} deliveryId={d.id} />}
            columns={[
              {
                header: "Event",
                cell: (d) => (
                  <>
                    <div className="mono small">{d.eventType}</div>
                    <div className="muted small mono">
                      {d.eventId}
                      {d.synthetic ? " (test)" : ""}
                    </div>
                  </>
                ),
              },
              { header: "Status", className: "nowrap", cell: (d) => <WebhookStatus status={d.status} /> },
              { header: "Attempts", numeric: true, cell: (d) => d.attemptCount },
              {
                header: "Last answer",
                className: "nowrap small",
                cell: (d) => (
                  <>
                    {d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : (d.lastError ?? "—")}
                    {d.nextAttemptAt && <div className="muted">next {formatRelative(d.nextAttemptAt)}</div>}
                  </>
                ),
              },
              {
                header: "Created",
                className: "nowrap",
                cell: (d) => (
                  <time dateTime={d.createdAt} title={formatDateTime(d.createdAt)}>
                    {formatRelative(d.createdAt)}
                  </time>
                ),
              },
              {
                header: <span className="visually-hidden">Details</span>,
                className: "actions",
                cell: (d) => (
                  <button
                    type="button"
                    className="button button-ghost"
                    aria-expanded={open === d.id}
                    onClick={() => setOpen(open === d.id ? null : d.id)}
                  >
                    {open === d.id ? "Hide" : "Details"}
                  </button>
                ),
              },
            ]}
          />
        )}
      </QueryState>
    </section>
  );
}

function DeliveryAttempts({ endpointId, deliveryId }: { endpointId: string; deliveryId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const detail = useQuery({
    ...trpc.webhooks.deliveries.get.queryOptions({ id: endpointId, deliveryId }),
    // Follows a delivery that is still on its way (a retry, say) until it settles.
    refetchInterval: (query) => {
      const status = query.state.data?.status;
      return status === "pending" || status === "retrying" ? 1500 : false;
    },
  });
  const retry = useMutation(
    trpc.webhooks.deliveries.retry.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.webhooks.deliveries.pathFilter()),
      onError: (err) => setError(errorMessage(err)),
    }),
  );

  if (detail.isPending) return <Loading>Loading attempts…</Loading>;
  if (detail.isError) return <FormError error={detail.error} />;
  return (
    <div className={`stack ${styles.attempts}`}>
      {detail.data.attempts.length === 0 ? (
        <p className="muted">Not attempted yet.</p>
      ) : (
        <DataTable
          plain
          label="Attempts"
          rows={detail.data.attempts}
          rowKey={(a) => String(a.number)}
          columns={[
            { header: "#", numeric: true, cell: (a) => a.number },
            { header: "Sent", className: "nowrap", cell: (a) => formatDateTime(a.startedAt) },
            { header: "Duration", className: "nowrap num", cell: (a) => `${a.durationMs} ms` },
            {
              header: "Answer",
              className: "nowrap",
              cell: (a) => (a.statusCode !== null ? `HTTP ${a.statusCode}` : a.error),
            },
            { header: "Response body", className: "mono small", cell: (a) => a.responseBody ?? "—" },
          ]}
        />
      )}
      <details>
        <summary>Event body</summary>
        <pre className={styles.payload}>{JSON.stringify(detail.data.event, null, 2)}</pre>
      </details>
      <FormError error={error} />
      <div>
        <button
          type="button"
          className="button"
          disabled={retry.isPending}
          onClick={() => retry.mutate({ id: endpointId, deliveryId })}
        >
          Retry now
        </button>
      </div>
    </div>
  );
}
