import type {
  EventEnvelope,
  PageQuery,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryStatus,
} from "@rubricon/contracts";
import { events, webhookDeliveries, webhookDeliveryAttempts } from "@rubricon/db";
import { and, asc, eq, isNull, lte, or } from "drizzle-orm";
import type { Actor } from "../../kernel";
import { ApiError } from "../../kernel";
import { loadEndpoint } from "./access";
import { seqPaginate } from "./seq-page";
import { type DeliveryRow, eventFromRow, toWebhookDelivery, toWebhookDeliveryAttempt } from "./serialize";
import type { WebhooksContext } from "./settings";

// GET /webhooks/{id}/deliveries
export async function listWebhookDeliveries(
  ctx: WebhooksContext,
  actor: Actor,
  endpointId: string,
  query: PageQuery & { status?: WebhookDeliveryStatus },
) {
  const endpoint = await loadEndpoint(ctx.db, actor, endpointId);
  const ofEndpoint = eq(webhookDeliveries.endpointId, endpoint.id);
  const page = await seqPaginate<DeliveryRow>({
    db: ctx.db,
    table: webhookDeliveries,
    where: and(ofEndpoint, query.status ? eq(webhookDeliveries.status, query.status) : undefined),
    cursorScope: ofEndpoint,
    query,
  });
  return { ...page, data: page.data.map(toWebhookDelivery) };
}

async function loadDelivery(ctx: WebhooksContext, actor: Actor, endpointId: string, deliveryId: string) {
  const endpoint = await loadEndpoint(ctx.db, actor, endpointId);
  const [row] = await ctx.db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpoint.id)))
    .limit(1);
  if (!row) throw ApiError.notFound("webhook_delivery_not_found", `No such delivery: ${deliveryId}.`);
  return { endpoint, row };
}

// GET /webhooks/{id}/deliveries/{deliveryId}
export async function getWebhookDelivery(
  ctx: WebhooksContext,
  actor: Actor,
  endpointId: string,
  deliveryId: string,
): Promise<WebhookDeliveryDetail> {
  const { row } = await loadDelivery(ctx, actor, endpointId, deliveryId);
  const attempts = await ctx.db
    .select()
    .from(webhookDeliveryAttempts)
    .where(eq(webhookDeliveryAttempts.deliveryId, row.id))
    .orderBy(asc(webhookDeliveryAttempts.id));
  return {
    ...toWebhookDelivery(row),
    attempts: attempts.map(toWebhookDeliveryAttempt),
    event: await deliveredEvent(ctx, row),
  };
}

async function deliveredEvent(ctx: WebhooksContext, row: DeliveryRow): Promise<EventEnvelope> {
  if (row.payload !== null) return JSON.parse(row.payload) as EventEnvelope;
  const [event] = await ctx.db.select().from(events).where(eq(events.id, row.eventId)).limit(1);
  if (!event) throw new Error(`delivery ${row.id} refers to missing event ${row.eventId}`);
  return eventFromRow(event);
}

/**
 * POST /webhooks/{id}/deliveries/{deliveryId}/retry — one more attempt now, whatever the state (a delivered one
 * is sent again: a replay). A delivery being sent at this moment is left to that attempt.
 */
export async function retryWebhookDelivery(
  ctx: WebhooksContext,
  actor: Actor,
  endpointId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  const { endpoint, row } = await loadDelivery(ctx, actor, endpointId, deliveryId);
  if (endpoint.status !== "enabled") {
    throw new ApiError(
      "webhook_endpoint_disabled",
      `Webhook endpoint ${endpoint.id} is disabled; enable it (PATCH status "enabled") before retrying deliveries.`,
    );
  }
  const now = ctx.clock.now();
  const [updated] = await ctx.db
    .update(webhookDeliveries)
    .set({ status: "pending", nextAttemptAt: now, updatedAt: now })
    .where(
      and(
        eq(webhookDeliveries.id, row.id),
        or(isNull(webhookDeliveries.claimedUntil), lte(webhookDeliveries.claimedUntil, now)),
      ),
    )
    .returning();
  return toWebhookDelivery(updated ?? row);
}
