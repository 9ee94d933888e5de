import type { PageQuery } from "@rubricon/contracts";
import { apiKeys, type DbOrTx } from "@rubricon/db";
import { and, eq, isNull } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, paginate } from "../../kernel";
import { findMembership, requireRole } from "../teams/access";
import { type ApiKeyRow, toApiKey } from "./api-keys";

/** Owners and admins answer for every key acting on their team, whoever minted it. */
async function requireKeyAdmin(db: DbOrTx, actor: Actor, teamId: string): Promise<void> {
  const membership = await findMembership(db, actor, teamId);
  if (!membership) throw ApiError.notFound("team_not_found", `No such team: ${teamId}.`);
  requireRole(membership, ["owner", "admin"], "manage the team's API keys");
}

/** `GET /teams/{id}/api-keys`: every key of the team, revoked ones included, newest first. */
export async function listTeamApiKeys(ctx: CoreContext, actor: Actor, teamId: string, query: PageQuery) {
  await requireKeyAdmin(ctx.db, actor, teamId);
  const page = await paginate<ApiKeyRow>({
    db: ctx.db,
    table: apiKeys,
    resource: "api_key",
    where: eq(apiKeys.teamId, teamId),
    query,
  });
  return { ...page, data: page.data.map(toApiKey) };
}

/** `DELETE /teams/{id}/api-keys/{keyId}`: revokes any key of the team. */
export async function revokeTeamApiKey(
  ctx: CoreContext,
  actor: Actor,
  teamId: string,
  keyId: string,
): Promise<{ id: string; deleted: true }> {
  await requireKeyAdmin(ctx.db, actor, teamId);
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .update(apiKeys)
    .set({ revokedAt: now, updatedAt: now })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.teamId, teamId)))
    .returning({ id: apiKeys.id });
  if (!row) throw ApiError.notFound("api_key_not_found", `No such API key: ${keyId}.`);
  return { id: keyId, deleted: true };
}

/** A member who leaves (or is removed) takes no working key on the team with them. */
export async function revokeMemberKeys(
  tx: DbOrTx,
  teamId: string,
  userId: string,
  now: Date,
): Promise<number> {
  const revoked = await tx
    .update(apiKeys)
    .set({ revokedAt: now, updatedAt: now })
    .where(and(eq(apiKeys.teamId, teamId), eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return revoked.length;
}
