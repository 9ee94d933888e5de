import type { ByokPatchInput, ByokPutInput, ByokSettings } from "@rubricon/contracts";
import { type DbOrTx, schema } from "@rubricon/db";
import { eq } from "drizzle-orm";
import type { Actor, CoreContext, Resolver } from "../../kernel";
import { ApiError, encryptSecret } from "../../kernel";
import { requireRole, resolveTargetTeam } from "../teams/access";
import { checkProviderBaseUrl } from "./base-url";
import type { PlatformModel } from "./resolve";

type Row = typeof schema.byokSettings.$inferSelect;

export interface ByokOptions {
  encryptionKey: string;
  /** `AUTOUSER_ALLOW_PRIVATE_URLS`: local model servers (Ollama on localhost) may be used. */
  allowPrivateUrls: boolean;
  platform: PlatformModel | null;
  resolve?: Resolver;
}

const WRITERS = ["owner", "admin"] as const;

/** The team's settings as the API shows them: never the key, only whether there is one and its last four. */
export function toByokSettings(
  teamId: string,
  row: Row | undefined,
  platform: PlatformModel | null,
): ByokSettings {
  const usable = row?.enabled === true && (row.sealedKey !== null || row.provider === "openai-compatible");
  const effective = usable
    ? { source: "byok" as const, provider: row.provider, model: row.model }
    : platform
      ? { source: "platform" as const, provider: platform.provider, model: platform.model }
      : { source: "none" as const, provider: null, model: null };
  return {
    object: "byok_settings",
    teamId,
    configured: row !== undefined,
    provider: row?.provider ?? null,
    model: row?.model ?? null,
    baseUrl: row?.baseUrl ?? null,
    enabled: row?.enabled ?? false,
    hasKey: row?.sealedKey != null,
    keyHint: row?.sealedKey != null ? row.keyHint : null,
    updatedAt: row?.updatedAt.toISOString() ?? null,
    effective,
    platformDefault: platform ? { provider: platform.provider, model: platform.model } : null,
  };
}

export async function readByokRow(db: DbOrTx, teamId: string): Promise<Row | undefined> {
  const [row] = await db
    .select()
    .from(schema.byokSettings)
    .where(eq(schema.byokSettings.teamId, teamId))
    .limit(1);
  return row;
}

/** Any member may read the team's settings (a key credential only its own team's). */
export async function getByokSettings(
  ctx: CoreContext,
  actor: Actor,
  teamId: string | undefined,
  opts: Pick<ByokOptions, "platform">,
): Promise<ByokSettings> {
  const { team } = await resolveTargetTeam(ctx.db, actor, teamId);
  return toByokSettings(team.id, await readByokRow(ctx.db, team.id), opts.platform);
}

interface Desired {
  provider: Row["provider"];
  model: string;
  baseUrl: string | null;
  enabled: boolean;
  /** undefined: keep the stored key (when allowed); null: none; string: a new key. */
  apiKey: string | null | undefined;
}

/**
 * The row to store for the desired settings. A stored key stays only while provider and base URL stay the
 * same: otherwise the new address could be a server of the caller's that would read the key it is sent.
 */
async function nextRow(
  teamId: string,
  actor: Actor,
  current: Row | undefined,
  desired: Desired,
  opts: ByokOptions,
): Promise<typeof schema.byokSettings.$inferInsert> {
  const baseUrl =
    desired.baseUrl === null
      ? null
      : await checkProviderBaseUrl(desired.baseUrl, {
          allowPrivate: opts.allowPrivateUrls,
          resolve: opts.resolve,
        });
  if (desired.provider === "openai-compatible" && baseUrl === null) {
    throw new ApiError(
      "parameter_missing",
      "An `openai-compatible` provider needs `baseUrl`, the server's address (e.g. http://localhost:11434/v1).",
      { param: "baseUrl" },
    );
  }
  const sameTarget =
    current !== undefined && current.provider === desired.provider && current.baseUrl === baseUrl;
  let sealedKey: string | null;
  let keyHint: string | null;
  if (typeof desired.apiKey === "string") {
    sealedKey = encryptSecret(desired.apiKey, opts.encryptionKey);
    keyHint = desired.apiKey.slice(-4);
  } else if (desired.apiKey === undefined && sameTarget) {
    sealedKey = current.sealedKey;
    keyHint = current.keyHint;
  } else {
    sealedKey = null;
    keyHint = null;
  }
  if (sealedKey === null && desired.provider !== "openai-compatible") {
    throw new ApiError(
      "parameter_missing",
      current?.sealedKey && desired.apiKey === undefined
        ? "Changing the provider or base URL needs the key again: send `apiKey`."
        : `The ${desired.provider} provider needs an API key: send \`apiKey\`.`,
      { param: "apiKey" },
    );
  }
  return {
    teamId,
    provider: desired.provider,
    model: desired.model,
    baseUrl,
    sealedKey,
    keyHint,
    enabled: desired.enabled,
    updatedBy: actor.userId,
  };
}

async function store(ctx: CoreContext, values: typeof schema.byokSettings.$inferInsert): Promise<Row> {
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .insert(schema.byokSettings)
    .values({ ...values, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: schema.byokSettings.teamId,
      set: {
        provider: values.provider,
        model: values.model,
        baseUrl: values.baseUrl,
        sealedKey: values.sealedKey,
        keyHint: values.keyHint,
        enabled: values.enabled,
        updatedBy: values.updatedBy,
        updatedAt: now,
      },
    })
    .returning();
  return row!;
}

async function writableTeam(ctx: CoreContext, actor: Actor, teamId: string | undefined) {
  const membership = await resolveTargetTeam(ctx.db, actor, teamId);
  requireRole(membership, [...WRITERS], "change the team's model keys");
  return membership.team;
}

/** Replaces the team's settings (creating them if needed). */
export async function putByokSettings(
  ctx: CoreContext,
  actor: Actor,
  input: ByokPutInput,
  opts: ByokOptions,
): Promise<ByokSettings> {
  const team = await writableTeam(ctx, actor, input.teamId);
  const current = await readByokRow(ctx.db, team.id);
  const values = await nextRow(
    team.id,
    actor,
    current,
    {
      provider: input.provider,
      model: input.model,
      baseUrl: input.baseUrl ?? null,
      enabled: input.enabled ?? true,
      apiKey: input.apiKey,
    },
    opts,
  );
  return toByokSettings(team.id, await store(ctx, values), opts.platform);
}

/** Changes the fields sent; the team must have settings already. */
export async function patchByokSettings(
  ctx: CoreContext,
  actor: Actor,
  input: ByokPatchInput,
  opts: ByokOptions,
): Promise<ByokSettings> {
  const team = await writableTeam(ctx, actor, input.teamId);
  const current = await readByokRow(ctx.db, team.id);
  if (!current) {
    throw ApiError.notFound(
      "byok_settings_not_found",
      "This team has no model settings to update; create them with PUT /settings/byok.",
    );
  }
  const values = await nextRow(
    team.id,
    actor,
    current,
    {
      provider: input.provider ?? current.provider,
      model: input.model ?? current.model,
      baseUrl: input.baseUrl === undefined ? current.baseUrl : input.baseUrl,
      enabled: input.enabled ?? current.enabled,
      apiKey: input.apiKey,
    },
    opts,
  );
  return toByokSettings(team.id, await store(ctx, values), opts.platform);
}

/** Removes the team's settings and key; the platform default (if any) applies again. Repeating it is harmless. */
export async function deleteByokSettings(
  ctx: CoreContext,
  actor: Actor,
  teamId: string | undefined,
  opts: Pick<ByokOptions, "platform">,
): Promise<ByokSettings> {
  const team = await writableTeam(ctx, actor, teamId);
  await ctx.db.delete(schema.byokSettings).where(eq(schema.byokSettings.teamId, team.id));
  return toByokSettings(team.id, undefined, opts.platform);
}
