import { LATEST_API_VERSION, type PageQuery, type Team, type TeamRole } from "@rubricon/contracts";
import { type DbOrTx, newId, teamMembers, teams } from "@rubricon/db";
import { and, count, eq, inArray } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, paginate } from "../../kernel";
import { revokeMemberKeys } from "../api-keys/team-keys";
import { findMembership, type Membership, requireRole, type TeamRow } from "./access";

export function toTeam(row: TeamRow, role?: TeamRole): Team {
  return {
    id: row.id,
    object: "team",
    name: row.name,
    description: row.description,
    plan: row.plan,
    ...(role ? { role } : {}),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The API version a team's keys and tokens answer in; null for no such team. */
export async function teamApiVersion(db: DbOrTx, teamId: string): Promise<string | null> {
  const [row] = await db
    .select({ apiVersion: teams.apiVersion })
    .from(teams)
    .where(eq(teams.id, teamId))
    .limit(1);
  return row?.apiVersion ?? null;
}

function requireUserActor(actor: Actor, action: string): void {
  if (actor.boundTeamId) {
    throw new ApiError(
      "session_required",
      `Only a signed-in user can ${action}; API keys and OAuth tokens act on one team.`,
    );
  }
}

async function membershipOr404(db: DbOrTx, actor: Actor, teamId: string): Promise<Membership> {
  const membership = await findMembership(db, actor, teamId);
  if (!membership) throw ApiError.notFound("team_not_found", `No such team: ${teamId}.`);
  return membership;
}

export async function listTeams(ctx: CoreContext, actor: Actor, query: PageQuery) {
  const memberships = await ctx.db
    .select({ teamId: teamMembers.teamId, role: teamMembers.role })
    .from(teamMembers)
    .where(eq(teamMembers.userId, actor.userId));
  const roles = new Map(memberships.map((m) => [m.teamId, m.role]));
  const ids = actor.boundTeamId ? [actor.boundTeamId] : [...roles.keys()];
  if (ids.length === 0) return { data: [], hasMore: false, usedLegacyCursor: false, totalCount: 0 };
  const page = await paginate<TeamRow>({
    db: ctx.db,
    table: teams,
    resource: "team",
    where: inArray(teams.id, ids),
    query,
  });
  return {
    ...page,
    data: page.data.map((t) => toTeam(t, roles.get(t.id))),
    totalCount: ids.length,
  };
}

export async function getTeam(ctx: CoreContext, actor: Actor, teamId: string): Promise<Team> {
  const m = await membershipOr404(ctx.db, actor, teamId);
  return toTeam(m.team, m.role);
}

export async function createTeam(
  ctx: CoreContext,
  actor: Actor,
  input: { name: string; description?: string | null },
): Promise<Team> {
  requireUserActor(actor, "create a team");
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [team] = await tx
      .insert(teams)
      .values({
        id: newId("team"),
        name: input.name,
        description: input.description ?? null,
        plan: ctx.newTeamPlan ?? "free",
        apiVersion: LATEST_API_VERSION,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await tx.insert(teamMembers).values({
      teamId: team!.id,
      userId: actor.userId,
      role: "owner",
      createdAt: now,
    });
    return toTeam(team!, "owner");
  });
}

export async function updateTeam(
  ctx: CoreContext,
  actor: Actor,
  teamId: string,
  input: { name?: string; description?: string | null },
): Promise<Team> {
  requireUserActor(actor, "change a team");
  const m = await membershipOr404(ctx.db, actor, teamId);
  requireRole(m, ["owner", "admin"], "change the team");
  const [team] = await ctx.db
    .update(teams)
    .set({
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      updatedAt: ctx.clock.now(),
    })
    .where(eq(teams.id, teamId))
    .returning();
  return toTeam(team!, m.role);
}

/** Leaves a team; the last owner cannot, so no team is ever left without one. */
export async function leaveTeam(ctx: CoreContext, actor: Actor, teamId: string) {
  requireUserActor(actor, "leave a team");
  return ctx.db.transaction(async (tx) => {
    const m = await membershipOr404(tx, actor, teamId);
    if (m.role === "owner") {
      // Lock the owner rows so two owners leaving at once cannot both succeed.
      const owners = await tx
        .select({ userId: teamMembers.userId })
        .from(teamMembers)
        .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.role, "owner")))
        .for("update");
      if (owners.length <= 1) {
        throw new ApiError(
          "last_owner_cannot_leave",
          "You are the team's last owner; make another member an owner before leaving.",
        );
      }
    }
    await tx
      .delete(teamMembers)
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, actor.userId)));
    const revokedApiKeys = await revokeMemberKeys(tx, teamId, actor.userId, ctx.clock.now());
    return { teamId, userId: actor.userId, left: true as const, revokedApiKeys };
  });
}

export async function countTeamMembers(db: DbOrTx, teamId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(teamMembers).where(eq(teamMembers.teamId, teamId));
  return row?.n ?? 0;
}
