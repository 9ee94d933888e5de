import { type DbOrTx, events, webhookEndpoints } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { findMembership, type Membership, resolveTargetTeam } from "../../identity";
import type { Actor } from "../../kernel";
import { ApiError } from "../../kernel";
import type { EndpointRow } from "./serialize";

/** An endpoint of a team the actor may act on; any other id, existing or not, is the same 404. */
export async function loadEndpoint(db: DbOrTx, actor: Actor, id: string): Promise<EndpointRow> {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).limit(1);
  if (!row || !(await findMembership(db, actor, row.teamId))) {
    throw ApiError.notFound("webhook_endpoint_not_found", `No such webhook endpoint: ${id}.`);
  }
  return row;
}

/** The team owning a webhook endpoint or event named by a path id, when it exists. */
async function ownerTeamOf(db: DbOrTx, id: string): Promise<string | null> {
  if (id.startsWith("whe_")) {
    const [row] = await db
      .select({ teamId: webhookEndpoints.teamId })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, id))
      .limit(1);
    return row?.teamId ?? null;
  }
  if (id.startsWith("event_")) {
    const [row] = await db.select({ teamId: events.teamId }).from(events).where(eq(events.id, id)).limit(1);
    return row?.teamId ?? null;
  }
  return null;
}

/**
 * The team a webhook or event-log request acts on, whose plan decides whether it is allowed: the explicit
 * `teamId`, else the team owning the endpoint or event in the path (when the actor belongs to it), else the
 * credential's team (for signed-in users, their personal team).
 */
export async function resolveRequestTeam(
  db: DbOrTx,
  actor: Actor,
  input: { teamId?: unknown; id?: unknown },
): Promise<Membership> {
  if (typeof input.teamId === "string") return resolveTargetTeam(db, actor, input.teamId);
  if (typeof input.id === "string") {
    const owner = await ownerTeamOf(db, input.id);
    const membership = owner ? await findMembership(db, actor, owner) : null;
    if (membership) return membership;
  }
  return resolveTargetTeam(db, actor, undefined);
}
