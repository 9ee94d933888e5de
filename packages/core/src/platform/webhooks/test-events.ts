import { API_VERSION, type EventEnvelope, type EventType, type WebhookTestResult } from "@rubricon/contracts";
import { newId, webhookDeliveries } from "@rubricon/db";
import type { Actor } from "../../kernel";
import { ApiError } from "../../kernel";
import { loadEndpoint } from "./access";
import { sampleObject } from "./samples";
import type { WebhooksContext } from "./settings";

/**
 * POST /webhooks/{id}/test — queues a real, signed delivery of a made-up event. Nothing is written but the
 * delivery row (which carries its own body, as there is no event row); the normal retry schedule applies.
 */
export async function sendTestEvent(
  ctx: WebhooksContext,
  actor: Actor,
  endpointId: string,
  type: EventType,
): Promise<WebhookTestResult> {
  const endpoint = await loadEndpoint(ctx.db, actor, endpointId);
  if (endpoint.status !== "enabled") {
    throw new ApiError(
      "webhook_endpoint_disabled",
      `Webhook endpoint ${endpoint.id} is disabled; enable it (PATCH status "enabled") before sending a test event.`,
    );
  }
  const now = ctx.clock.now();
  const eventId = newId("event").replace(/^event_/, "event_test_");
  const deliveryId = newId("webhookDelivery").replace(/^whd_/, "whd_test_");
  const envelope: EventEnvelope = {
    id: eventId,
    object: "event",
    type,
    api_version: API_VERSION,
    created: Math.floor(now.getTime() / 1000),
    team_id: endpoint.teamId,
    data: {
      object: sampleObject(type, { teamId: endpoint.teamId, baseUrl: ctx.baseUrl, now, seed: eventId }),
    },
    request: { id: ctx.request?.id ?? null, idempotency_key: ctx.request?.idempotencyKey ?? null },
  };
  await ctx.db.insert(webhookDeliveries).values({
    id: deliveryId,
    endpointId: endpoint.id,
    teamId: endpoint.teamId,
    eventId,
    eventType: type,
    synthetic: true,
    payload: JSON.stringify(envelope),
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
  });
  return { deliveryId, eventId, status: "pending", synthetic: true, scheduledFor: now.toISOString() };
}
