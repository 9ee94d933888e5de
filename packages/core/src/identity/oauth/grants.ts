import { type ConnectedApp, SCOPES, type Scope } from "@rubricon/contracts";
import { type Db, oauthGrants, oauthRecords, teamMembers, teams } from "@rubricon/db";
import { and, asc, desc, eq, inArray, isNull, or } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, BoundedMap } from "../../kernel";

export type GrantRevocation = "user" | "reuse" | "client";

/**
 * Whether access tokens of a grant still work. A grant the user disconnected, or whose rotated refresh token came
 * back, ends its tokens; one the app revoked itself does not (the spec: access tokens are stateless and live out
 * their 15 minutes). Known answers are cached: an ended grant never comes back, and a live one is asked again
 * after a few seconds, so another instance's revocation takes hold within that time.
 */
const LIVE_RECHECK_MS = 5_000;
const ended = new BoundedMap<string, true>(50_000);
const liveUntil = new BoundedMap<string, number>(50_000);

export async function grantEndsTokens(db: Db, grantId: string, now: Date): Promise<boolean> {
  if (ended.get(grantId)) return true;
  const until = liveUntil.get(grantId);
  if (until !== undefined && until > now.getTime()) return false;
  const [row] = await db
    .select({ reason: oauthGrants.revokedReason })
    .from(oauthGrants)
    .where(eq(oauthGrants.id, grantId));
  if (!row || row.reason === "user" || row.reason === "reuse") {
    ended.set(grantId, true);
    liveUntil.delete(grantId);
    return true;
  }
  liveUntil.set(grantId, now.getTime() + LIVE_RECHECK_MS);
  return false;
}

/** A grant's team and whether it was revoked, for the authorization server's token checks. */
export async function grantTeam(
  db: Db,
  grantId: string,
): Promise<{ teamId: string; revokedAt: Date | null } | undefined> {
  const [row] = await db
    .select({ teamId: oauthGrants.teamId, revokedAt: oauthGrants.revokedAt })
    .from(oauthGrants)
    .where(eq(oauthGrants.id, grantId));
  return row;
}

export async function recordGrant(
  db: Db,
  grant: { id: string; clientId: string; userId: string; teamId: string; resource: string; scopes: string[] },
  now: Date,
): Promise<void> {
  await db.insert(oauthGrants).values({ ...grant, createdAt: now });
}

/** Marks a grant revoked (the first reason stays) and forgets its cached liveness. */
export async function markGrantRevoked(db: Db, grantId: string, reason: GrantRevocation, now: Date) {
  // This instance stops accepting the tokens before the write lands.
  if (reason !== "client") ended.set(grantId, true);
  await db
    .update(oauthGrants)
    .set({ revokedAt: now, revokedReason: reason })
    .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)));
  liveUntil.delete(grantId);
}

/** The teams a user can pick for a grant, personal team first. */
export async function teamsOfUser(db: Db, userId: string): Promise<{ id: string; name: string }[]> {
  return db
    .select({ id: teams.id, name: teams.name })
    .from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .where(eq(teamMembers.userId, userId))
    .orderBy(asc(teamMembers.createdAt));
}

interface ClientMetadata {
  client_name?: string;
  redirect_uris?: string[];
}

function hostsOf(uris: string[] | undefined): string[] {
  const hosts = new Set<string>();
  for (const uri of uris ?? []) {
    try {
      hosts.add(new URL(uri).host || new URL(uri).protocol);
    } catch {
      // A registered URI always parses; a bad one is not shown.
    }
  }
  return [...hosts];
}

async function clientMetadata(db: Db, clientIds: string[]): Promise<Map<string, ClientMetadata>> {
  if (clientIds.length === 0) return new Map();
  const rows = await db
    .select({ key: oauthRecords.key, payload: oauthRecords.payload })
    .from(oauthRecords)
    .where(and(eq(oauthRecords.model, "Client"), inArray(oauthRecords.key, clientIds)));
  return new Map(rows.map((r) => [r.key, r.payload as ClientMetadata]));
}

function sessionOnly(actor: Actor): void {
  if (actor.principal !== "session")
    throw new ApiError("session_required", "Connected apps are managed from a signed-in session only.");
}

/** Apps holding a live grant of the user, one entry per app. */
export async function listConnectedApps(ctx: CoreContext, actor: Actor): Promise<ConnectedApp[]> {
  sessionOnly(actor);
  const grants = await ctx.db
    .select()
    .from(oauthGrants)
    .where(and(eq(oauthGrants.userId, actor.userId), isNull(oauthGrants.revokedAt)))
    .orderBy(desc(oauthGrants.createdAt), desc(oauthGrants.id));
  const clients = await clientMetadata(ctx.db, [...new Set(grants.map((g) => g.clientId))]);
  const apps = new Map<string, ConnectedApp>();
  const known = new Set<string>(SCOPES);
  for (const g of grants) {
    const meta = clients.get(g.clientId);
    // A grant whose app was deleted is no connection any more.
    if (!meta) continue;
    let app = apps.get(g.clientId);
    if (!app) {
      app = {
        object: "connected_app",
        clientId: g.clientId,
        name: meta.client_name ?? g.clientId,
        redirectHosts: hostsOf(meta.redirect_uris),
        teamIds: [],
        scopes: [],
        resources: [],
        connectedAt: g.createdAt.toISOString(),
      };
      apps.set(g.clientId, app);
    }
    app.connectedAt = g.createdAt.toISOString();
    if (!app.teamIds.includes(g.teamId)) app.teamIds.push(g.teamId);
    for (const r of g.resource.split(" ")) if (!app.resources.includes(r)) app.resources.push(r);
    for (const s of g.scopes)
      if (known.has(s) && !app.scopes.includes(s as Scope)) app.scopes.push(s as Scope);
  }
  // Most recently connected first, as every list; an app is dated by its earliest live grant.
  return [...apps.values()];
}

/**
 * Disconnects an app: every grant the user gave it ends, with its refresh tokens and codes, and its access
 * tokens stop working at once (they carry the grant's id).
 */
export async function disconnectApp(ctx: CoreContext, actor: Actor, clientId: string) {
  sessionOnly(actor);
  const now = ctx.clock.now();
  const grants = await ctx.db
    .select({ id: oauthGrants.id })
    .from(oauthGrants)
    .where(
      and(
        eq(oauthGrants.userId, actor.userId),
        eq(oauthGrants.clientId, clientId),
        or(isNull(oauthGrants.revokedAt), eq(oauthGrants.revokedReason, "client")),
      ),
    );
  const live = await ctx.db
    .select({ id: oauthGrants.id })
    .from(oauthGrants)
    .where(
      and(
        eq(oauthGrants.userId, actor.userId),
        eq(oauthGrants.clientId, clientId),
        isNull(oauthGrants.revokedAt),
      ),
    );
  if (live.length === 0)
    throw new ApiError("connected_app_not_found", `No connected app with client id ${clientId}.`, {
      param: "clientId",
    });
  const ids = grants.map((g) => g.id);
  await ctx.db.transaction(async (tx) => {
    await tx.delete(oauthRecords).where(inArray(oauthRecords.grantId, ids));
    await tx.delete(oauthRecords).where(and(eq(oauthRecords.model, "Grant"), inArray(oauthRecords.key, ids)));
    await tx
      .update(oauthGrants)
      .set({ revokedAt: now, revokedReason: "user" })
      .where(inArray(oauthGrants.id, ids));
  });
  for (const id of ids) {
    liveUntil.delete(id);
    ended.set(id, true);
  }
  return { id: clientId, object: "connected_app" as const, deleted: true as const };
}
