"use client";

import { WEBHOOK_DELIVERY_STATUSES, type WebhookDeliveryStatus } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { errorMessage } from "@/lib/errors";
import { formatDateTime, formatRelative } from "@/lib/format";
import { type RouterOutputs, useTRPC } from "@/lib/trpc";
import { FormError } from "@/ui";
import { WebhookStatus } from "./status";
import styles from "./webhooks.module.css";

type Delivery = RouterOutputs["webhooks"]["deliveries"]["list"]["data"][number];

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
        <div className="field">
          <label htmlFor="delivery-status">Status</label>
          <select
            id="delivery-status"
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
        </div>
      </div>
      {deliveries.isPending && <p className="muted">Loading deliveries…</p>}
      <FormError error={deliveries.error} />
      {deliveries.data && deliveries.data.data.length === 0 && (
        <p className="muted">No deliveries yet. Send a test event to try the endpoint.</p>
      )}
      {deliveries.data && deliveries.data.data.length > 0 && (
        <div className="table-scroll">
          <table className="table" aria-label="Deliveries">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="visually-hidden">Details</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.data.map((d) => (
                <Fragment key={d.id}>
                  <DeliveryRow
                    delivery={d}
                    open={open === d.id}
                    onToggle={() => setOpen(open === d.id ? null : d.id)}
                  />
                  {open === d.id && (
                    <tr>
                      <td colSpan={6}>
                        <DeliveryAttempts endpointId={endpointId} deliveryId={d.id} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function DeliveryRow({
  delivery: d,
  open,
  onToggle,
}: {
  delivery: Delivery;
  open: boolean;
  onToggle: () => void;
}) {
  return (
    <tr data-delivery-id={d.id}>
      <td>
        <div className="mono small">{d.eventType}</div>
        <div className="muted small mono">
          {d.eventId}
          {d.synthetic ? " (test)" : ""}
        </div>
      </td>
      <td className="nowrap">
        <WebhookStatus status={d.status} />
      </td>
      <td className="num">{d.attemptCount}</td>
      <td className="nowrap small">
        {d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : (d.lastError ?? "—")}
        {d.nextAttemptAt && <div className="muted">next {formatRelative(d.nextAttemptAt)}</div>}
      </td>
      <td className="nowrap">
        <time dateTime={d.createdAt} title={formatDateTime(d.createdAt)}>
          {formatRelative(d.createdAt)}
        </time>
      </td>
      <td className="actions">
        <button type="button" className="button button-ghost" aria-expanded={open} onClick={onToggle}>
          {open ? "Hide" : "Details"}
        </button>
      </td>
    </tr>
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

  if (detail.isPending) return <p className="muted">Loading attempts…</p>;
  if (detail.isError)
    return (
      <p className="alert alert-error" role="alert">
        {errorMessage(detail.error)}
      </p>
    );
  return (
    <div className={`stack ${styles.attempts}`}>
      {detail.data.attempts.length === 0 ? (
        <p className="muted">Not attempted yet.</p>
      ) : (
        <table className="table" aria-label="Attempts">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Sent</th>
              <th scope="col">Duration</th>
              <th scope="col">Answer</th>
              <th scope="col">Response body</th>
            </tr>
          </thead>
          <tbody>
            {detail.data.attempts.map((a) => (
              <tr key={a.number}>
                <td className="num">{a.number}</td>
                <td className="nowrap">{formatDateTime(a.startedAt)}</td>
                <td className="nowrap num">{a.durationMs} ms</td>
                <td className="nowrap">{a.statusCode !== null ? `HTTP ${a.statusCode}` : a.error}</td>
                <td className="mono small">{a.responseBody ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
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
