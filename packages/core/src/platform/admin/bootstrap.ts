import { LATEST_API_VERSION, PLANS, type Plan, SCOPES, type Scope } from "@rubricon/contracts";
import { type DbOrTx, newId, teamMembers, teams } from "@rubricon/db";
import { and, asc, eq, isNull, or } from "drizzle-orm";
import { createApiKey, createUser, findUserByEmail } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError } from "../../kernel";

/** Operator tooling: these functions act with no signed-in user, so the caller must be trusted (the admin CLI). */

export const BOOTSTRAP_KEY_NAME = "bootstrap";

/** Enterprise limits an operator can set; absent keys keep the plan's defaults. */
export const CUSTOM_LIMIT_KEYS = [
  "requestsPerMinute",
  "autouserRatingsPerMonth",
  "humanRatingsPerMonth",
  "evaluations",
] as const;
export type CustomLimitKey = (typeof CUSTOM_LIMIT_KEYS)[number];
export type CustomLimits = Partial<Record<CustomLimitKey, number>>;

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

/** Scopes as an operator types them: comma- or space-separated; an unknown one is an error naming it. */
export function parseScopeList(text: string): Scope[] {
  const known = new Set<string>(SCOPES);
  const parts = text.split(/[\s,]+/).filter((s) => s.length > 0);
  if (parts.length === 0) throw ApiError.invalid("scopes", "At least one scope is required.");
  for (const part of parts) {
    if (!known.has(part))
      throw ApiError.invalid("scopes", `Unknown scope '${part}'; known scopes: ${SCOPES.join(", ")}.`);
  }
  return [...new Set(parts)] as Scope[];
}

export interface BootstrapInput {
  email: string;
  /** Used only when the user is created; an existing user's password is left alone. */
  password?: string;
  teamName: string;
  plan: Plan;
  scopes: Scope[];
  keyName?: string;
}

export interface BootstrapResult {
  userId: string;
  teamId: string;
  apiKey: string;
  apiKeyId: string;
  createdUser: boolean;
  createdTeam: boolean;
}

/**
 * The team to bootstrap into: one of that name the user already belongs to, else any shared team of that exact
 * name (someone else's personal team is never borrowed), oldest first so repeated runs land on the same one.
 */
async function findTeamByName(
  db: DbOrTx,
  userId: string,
  name: string,
): Promise<{ id: string; isMember: boolean } | null> {
  const [mine] = await db
    .select({ id: teams.id })
    .from(teams)
    .innerJoin(teamMembers, and(eq(teamMembers.teamId, teams.id), eq(teamMembers.userId, userId)))
    .where(eq(teams.name, name))
    .orderBy(asc(teams.createdAt), asc(teams.id))
    .limit(1);
  if (mine) return { id: mine.id, isMember: true };
  const [shared] = await db
    .select({ id: teams.id })
    .from(teams)
    .where(and(eq(teams.name, name), or(isNull(teams.personalOwnerId), eq(teams.personalOwnerId, userId))))
    .orderBy(asc(teams.createdAt), asc(teams.id))
    .limit(1);
  return shared ? { id: shared.id, isMember: false } : null;
}

/** Makes (or finds) a user and a team on the given plan and mints a team-bound API key: a fresh install's first credential. */
export async function bootstrapAccount(ctx: CoreContext, input: BootstrapInput): Promise<BootstrapResult> {
  const teamName = input.teamName.trim();
  if (!teamName) throw ApiError.invalid("team", "The team name must not be empty.");
  let user = await findUserByEmail(ctx.db, input.email);
  const createdUser = !user;
  if (!user) {
    if (!input.password || input.password.length < 8) {
      throw ApiError.invalid("password", "A new user needs a password of at least 8 characters.");
    }
    user = (await createUser(ctx, { email: input.email, password: input.password })).user;
  }
  const userId = user.id;

  const { teamId, createdTeam } = await ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const found = await findTeamByName(tx, userId, teamName);
    if (found) {
      if (!found.isMember) {
        await tx
          .insert(teamMembers)
          .values({ teamId: found.id, userId, role: "member", createdAt: now })
          .onConflictDoNothing();
      }
      await tx.update(teams).set({ plan: input.plan, updatedAt: now }).where(eq(teams.id, found.id));
      return { teamId: found.id, createdTeam: false };
    }
    const [team] = await tx
      .insert(teams)
      .values({
        id: newId("team"),
        name: teamName,
        plan: input.plan,
        apiVersion: LATEST_API_VERSION,
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: teams.id });
    await tx.insert(teamMembers).values({ teamId: team!.id, userId, role: "owner", createdAt: now });
    return { teamId: team!.id, createdTeam: true };
  });

  const actor: Actor = { userId, boundTeamId: null, principal: "session" };
  const key = await createApiKey(ctx, actor, {
    name: input.keyName ?? BOOTSTRAP_KEY_NAME,
    scopes: input.scopes,
    teamId,
  });
  return {
    userId,
    teamId,
    apiKey: key.key,
    apiKeyId: key.id,
    createdUser,
    createdTeam,
  };
}

export async function setTeamPlan(
  ctx: CoreContext,
  teamId: string,
  plan: Plan,
): Promise<{ teamId: string; plan: Plan }> {
  const [row] = await ctx.db
    .update(teams)
    .set({ plan, updatedAt: ctx.clock.now() })
    .where(eq(teams.id, teamId))
    .returning({ id: teams.id, plan: teams.plan });
  if (!row) throw ApiError.notFound("team_not_found", `No such team: ${teamId}.`);
  return { teamId: row.id, plan: row.plan };
}

/** Merges into the team's custom limits; a key set to null goes back to the plan default. */
export async function setTeamLimits(
  ctx: CoreContext,
  teamId: string,
  limits: Partial<Record<CustomLimitKey, number | null>>,
): Promise<{ teamId: string; plan: Plan; customLimits: CustomLimits | null }> {
  for (const [name, value] of Object.entries(limits)) {
    if (!(CUSTOM_LIMIT_KEYS as readonly string[]).includes(name))
      throw ApiError.invalid(name, `Unknown limit '${name}'.`);
    if (value !== null && value !== undefined && (!Number.isInteger(value) || value < 0)) {
      throw ApiError.invalid(name, `Limit '${name}' must be a non-negative integer.`);
    }
  }
  return ctx.db.transaction(async (tx) => {
    const [team] = await tx.select().from(teams).where(eq(teams.id, teamId)).for("update").limit(1);
    if (!team) throw ApiError.notFound("team_not_found", `No such team: ${teamId}.`);
    const merged: Record<string, number> = { ...(team.customLimits ?? {}) };
    for (const [name, value] of Object.entries(limits)) {
      if (value === null) delete merged[name];
      else if (value !== undefined) merged[name] = value;
    }
    const customLimits = Object.keys(merged).length > 0 ? merged : null;
    await tx.update(teams).set({ customLimits, updatedAt: ctx.clock.now() }).where(eq(teams.id, teamId));
    return {
      teamId,
      plan: team.plan,
      customLimits: customLimits as CustomLimits | null,
    };
  });
}
