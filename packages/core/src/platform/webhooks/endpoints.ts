import {
  type PageQuery,
  PREVIOUS_SECRET_VALIDITY_MS,
  type WebhookEndpoint,
  type WebhookEndpointCreateInput,
  type WebhookEndpointUpdateInput,
  type WebhookEndpointWithSecret,
  type WebhookSecretRotation,
} from "@rubricon/contracts";
import { newId, webhookEndpoints } from "@rubricon/db";
import { eq, sql } from "drizzle-orm";
import { resolveTargetTeam } from "../../identity";
import type { Actor } from "../../kernel";
import { checkWebhookUrl, paginate, recordTombstone } from "../../kernel";
import { loadEndpoint } from "./access";
import { newSigningSecret, storedSecret } from "./secrets";
import { type EndpointRow, toWebhookEndpoint } from "./serialize";
import type { WebhooksContext } from "./settings";

const TOMBSTONE = "webhook_endpoints";

function urlPolicy(ctx: WebhooksContext) {
  return { allowPrivate: ctx.webhooks.allowPrivateUrls, resolve: ctx.webhooks.resolve };
}

// POST /webhooks
export async function createWebhookEndpoint(
  ctx: WebhooksContext,
  actor: Actor,
  input: WebhookEndpointCreateInput,
): Promise<WebhookEndpointWithSecret> {
  const { team } = await resolveTargetTeam(ctx.db, actor, input.teamId);
  const url = await checkWebhookUrl(input.url, urlPolicy(ctx));
  const secret = newSigningSecret();
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .insert(webhookEndpoints)
    .values({
      id: newId("webhookEndpoint"),
      teamId: team.id,
      url,
      description: input.description ?? null,
      enabledEvents: input.enabled_events,
      // Its payloads keep the shape of the version the endpoint was made under, as its receiver was written for.
      apiVersion: ctx.request?.apiVersion ?? team.apiVersion,
      ...storedSecret(secret, ctx.webhooks.encryptionKey),
      failureWindowStart: now,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return { ...toWebhookEndpoint(row!, now), secret };
}

// GET /webhooks
export async function listWebhookEndpoints(
  ctx: WebhooksContext,
  actor: Actor,
  query: PageQuery & { teamId?: string },
) {
  const { team } = await resolveTargetTeam(ctx.db, actor, query.teamId);
  const page = await paginate<EndpointRow>({
    db: ctx.db,
    table: webhookEndpoints,
    resource: TOMBSTONE,
    where: eq(webhookEndpoints.teamId, team.id),
    query,
  });
  const now = ctx.clock.now();
  return { ...page, data: page.data.map((row) => toWebhookEndpoint(row, now)) };
}

// GET /webhooks/{id}
export async function getWebhookEndpoint(
  ctx: WebhooksContext,
  actor: Actor,
  id: string,
): Promise<WebhookEndpoint> {
  return toWebhookEndpoint(await loadEndpoint(ctx.db, actor, id), ctx.clock.now());
}

// PATCH /webhooks/{id}
export async function updateWebhookEndpoint(
  ctx: WebhooksContext,
  actor: Actor,
  id: string,
  patch: WebhookEndpointUpdateInput,
): Promise<WebhookEndpoint> {
  const current = await loadEndpoint(ctx.db, actor, id);
  const now = ctx.clock.now();
  const changes: Partial<EndpointRow> = { updatedAt: now };
  if (patch.url !== undefined) changes.url = await checkWebhookUrl(patch.url, urlPolicy(ctx));
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.enabled_events !== undefined) changes.enabledEvents = patch.enabled_events;
  if (patch.status === "disabled" && current.status === "enabled") {
    Object.assign(changes, { status: "disabled", disabledAt: now, disabledReason: null });
  }
  if (patch.status === "enabled" && current.status === "disabled") {
    // A fresh start: failures from before re-enabling no longer count towards disabling it again.
    Object.assign(changes, {
      status: "enabled",
      disabledAt: null,
      disabledReason: null,
      goneStreak: 0,
      failureWindowStart: now,
    });
  }
  const [row] = await ctx.db
    .update(webhookEndpoints)
    .set(changes)
    .where(eq(webhookEndpoints.id, current.id))
    .returning();
  return toWebhookEndpoint(row!, now);
}

// DELETE /webhooks/{id} — its deliveries and their attempts go with it
export async function deleteWebhookEndpoint(
  ctx: WebhooksContext,
  actor: Actor,
  id: string,
): Promise<{ id: string; deleted: true }> {
  const current = await loadEndpoint(ctx.db, actor, id);
  await ctx.db.transaction(async (tx) => {
    await recordTombstone(tx, webhookEndpoints, TOMBSTONE, [current.id]);
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, current.id));
  });
  return { id: current.id, deleted: true };
}

/**
 * POST /webhooks/{id}/rotate-secret. The secret being replaced keeps signing `Service-Signature` for 24 hours
 * (receivers that still hold only it keep verifying); a second rotation within that window replaces it with the
 * secret current until then, so exactly one previous secret is ever live.
 */
export async function rotateWebhookSecret(
  ctx: WebhooksContext,
  actor: Actor,
  id: string,
): Promise<WebhookSecretRotation> {
  const current = await loadEndpoint(ctx.db, actor, id);
  const secret = newSigningSecret();
  const now = ctx.clock.now();
  const validUntil = new Date(now.getTime() + PREVIOUS_SECRET_VALIDITY_MS);
  await ctx.db
    .update(webhookEndpoints)
    .set({
      ...storedSecret(secret, ctx.webhooks.encryptionKey),
      // Read from the row being updated, so two rotations at once cannot both demote the same secret.
      previousSecretSealed: sql`${webhookEndpoints.secretSealed}`,
      previousSecretExpiresAt: validUntil,
      secretRotatedAt: now,
      updatedAt: now,
    })
    .where(eq(webhookEndpoints.id, current.id));
  return {
    id: current.id,
    secret,
    rotatedAt: now.toISOString(),
    previousSecretValidUntil: validUntil.toISOString(),
  };
}
