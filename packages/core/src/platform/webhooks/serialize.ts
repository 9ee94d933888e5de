import type {
  EventEnvelope,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookEndpoint,
} from "@rubricon/contracts";
import type { events, webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints } from "@rubricon/db";
import { toEventEnvelope } from "../events/emit";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookDeliveryAttempts.$inferSelect;
export type EventRow = typeof events.$inferSelect;

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function toWebhookEndpoint(row: EndpointRow, now: Date): WebhookEndpoint {
  const previousLive = row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt > now;
  return {
    id: row.id,
    object: "webhook_endpoint",
    teamId: row.teamId,
    url: row.url,
    description: row.description,
    enabled_events: row.enabledEvents,
    apiVersion: row.apiVersion,
    status: row.status,
    disabled_reason: row.disabledReason,
    disabledAt: iso(row.disabledAt),
    secretRotatedAt: iso(row.secretRotatedAt),
    previousSecretValidUntil: previousLive ? iso(row.previousSecretExpiresAt) : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toWebhookDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    object: "webhook_delivery",
    endpointId: row.endpointId,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    synthetic: row.synthetic,
    attemptCount: row.attemptCount,
    nextAttemptAt: row.status === "pending" || row.status === "retrying" ? iso(row.nextAttemptAt) : null,
    lastAttemptAt: iso(row.lastAttemptAt),
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    deliveredAt: iso(row.deliveredAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toWebhookDeliveryAttempt(row: AttemptRow): WebhookDeliveryAttempt {
  return {
    number: row.number,
    startedAt: row.startedAt.toISOString(),
    durationMs: row.durationMs,
    succeeded: row.succeeded,
    statusCode: row.statusCode,
    responseBody: row.responseBody,
    error: row.error,
  };
}

/** The exact bytes deliveries of this event send: stored at emit time; rebuilt only for rows older than that. */
export function eventPayload(row: EventRow): string {
  return row.payload ?? JSON.stringify(toEventEnvelope(row));
}

export function eventFromRow(row: EventRow): EventEnvelope {
  return JSON.parse(eventPayload(row)) as EventEnvelope;
}
