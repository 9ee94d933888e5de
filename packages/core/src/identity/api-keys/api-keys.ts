import { API_KEY_PREFIX, type ApiKey, type PageQuery, type Scope } from "@rubricon/contracts";
import { apiKeys, type DbOrTx, hotStatement, newId, type Params } from "@rubricon/db";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, BoundedMap, paginate, randomToken, sha256Hex } from "../../kernel";
import { resolveTargetTeam } from "../teams/access";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    object: "api_key",
    name: row.name,
    teamId: row.teamId,
    userId: row.userId,
    prefix: row.prefix,
    scopes: row.scopes as Scope[],
    expiresAt: row.expiresAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    lastUsedIp: row.lastUsedIp,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Mints a key bound to one team; the plaintext is returned here once and only its sha256 is kept. */
export async function createApiKey(
  ctx: CoreContext,
  actor: Actor,
  input: {
    name: string;
    scopes: Scope[];
    teamId?: string;
    expiresAt?: string | null;
  },
): Promise<ApiKey & { key: string }> {
  const { team } = await resolveTargetTeam(ctx.db, actor, input.teamId);
  const now = ctx.clock.now();
  const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
  if (expiresAt && expiresAt.getTime() <= now.getTime()) {
    throw ApiError.invalid("expiresAt", "`expiresAt` must be in the future.");
  }
  const key = `${API_KEY_PREFIX}${randomToken(32)}`;
  const [row] = await ctx.db
    .insert(apiKeys)
    .values({
      id: newId("apiKey"),
      teamId: team.id,
      userId: actor.userId,
      name: input.name,
      prefix: key.slice(0, API_KEY_PREFIX.length + 4),
      keyHash: sha256Hex(key),
      scopes: [...new Set(input.scopes)],
      expiresAt,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return { ...toApiKey(row!), key };
}

/** Keys the user minted, newest first. */
export async function listApiKeys(ctx: CoreContext, actor: Actor, query: PageQuery) {
  const page = await paginate<ApiKeyRow>({
    db: ctx.db,
    table: apiKeys,
    resource: "api_key",
    where: eq(apiKeys.userId, actor.userId),
    query,
  });
  return { ...page, data: page.data.map(toApiKey) };
}

export async function revokeApiKey(
  ctx: CoreContext,
  actor: Actor,
  keyId: string,
): Promise<{ id: string; deleted: true }> {
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .update(apiKeys)
    .set({ revokedAt: now, updatedAt: now })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, actor.userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  if (!row) {
    const [existing] = await ctx.db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, actor.userId)))
      .limit(1);
    if (!existing) throw ApiError.notFound("api_key_not_found", `No such API key: ${keyId}.`);
  }
  return { id: keyId, deleted: true };
}

/**
 * What a request's key check reads: the caller and the key's state, not its name, prefix or dates shown in lists
 * (fewer values for Postgres to send and for the driver and Drizzle to decode on every request).
 */
const presentedKeyColumns = {
  id: apiKeys.id,
  teamId: apiKeys.teamId,
  userId: apiKeys.userId,
  scopes: apiKeys.scopes,
  expiresAt: apiKeys.expiresAt,
  revokedAt: apiKeys.revokedAt,
  lastUsedAt: apiKeys.lastUsedAt,
  lastUsedIp: apiKeys.lastUsedIp,
};
export type PresentedKey = Pick<ApiKeyRow, keyof typeof presentedKeyColumns>;

const apiKeyByHash = hotStatement("api_key_by_hash", (db, $: Params<{ keyHash: string }>) =>
  db.select(presentedKeyColumns).from(apiKeys).where(eq(apiKeys.keyHash, $.keyHash)).limit(1),
);

/** Resolves a presented key; unknown, revoked and expired keys are 401s with their own codes. */
export async function authenticateApiKey(db: DbOrTx, plaintext: string, now: Date): Promise<PresentedKey> {
  const [row] = await apiKeyByHash(db, { keyHash: sha256Hex(plaintext) });
  if (!row) throw new ApiError("invalid_api_key", "Invalid API key provided.");
  if (row.revokedAt) throw new ApiError("api_key_revoked", "This API key has been revoked.");
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) {
    throw new ApiError("api_key_expired", "This API key has expired.");
  }
  return row;
}

const LAST_USED_GRANULARITY_MS = 60_000;
/** Keys used recently in this process; bounded, so a flood of distinct keys cannot grow it (a forgotten key only
 * costs one conditional update). */
const lastWritten = new BoundedMap<string, number>(100_000);

/**
 * Records last use at most once a minute per key and process, so a busy key costs no write per request.
 * The update is conditional too, so several processes together still write about once a minute. Answers the
 * write to wait for, or undefined when there is none (no promise made on the busy path).
 */
export function recordApiKeyUse(
  db: DbOrTx,
  key: PresentedKey,
  ip: string | null,
  now: Date,
): Promise<unknown> | undefined {
  const t = now.getTime();
  const last = Math.max(lastWritten.get(key.id) ?? 0, key.lastUsedAt?.getTime() ?? 0);
  if (t - last < LAST_USED_GRANULARITY_MS && key.lastUsedIp === ip) return undefined;
  lastWritten.set(key.id, t);
  return db
    .update(apiKeys)
    .set({ lastUsedAt: now, lastUsedIp: ip })
    .where(
      and(
        eq(apiKeys.id, key.id),
        or(
          isNull(apiKeys.lastUsedAt),
          lt(apiKeys.lastUsedAt, new Date(t - LAST_USED_GRANULARITY_MS)),
          sql`${apiKeys.lastUsedIp} is distinct from ${ip}`,
        ),
      ),
    )
    .execute();
}
