import { type DbOrTx, hotStatement, type Params, teamMembers, teams } from "@rubricon/db";
import { and, asc, eq } from "drizzle-orm";
import type { Actor } from "../../kernel";
import { ApiError } from "../../kernel";

export type TeamRow = typeof teams.$inferSelect;
export type Membership = { team: TeamRow; role: "owner" | "admin" | "member" };

/** Teams the actor may act on: the bound team for keys and OAuth tokens, every membership otherwise. */
export async function actorTeamIds(db: DbOrTx, actor: Actor): Promise<string[]> {
  if (actor.boundTeamId) return [actor.boundTeamId];
  const rows = await db
    .select({ teamId: teamMembers.teamId })
    .from(teamMembers)
    .where(eq(teamMembers.userId, actor.userId))
    .orderBy(asc(teamMembers.createdAt));
  return rows.map((r) => r.teamId);
}

// Read by nearly every request that names or implies a team.
const membershipQuery = hotStatement("team_membership", (db, $: Params<{ teamId: string; userId: string }>) =>
  db
    .select({ team: teams, role: teamMembers.role })
    .from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .where(and(eq(teamMembers.teamId, $.teamId), eq(teamMembers.userId, $.userId)))
    .limit(1),
);
const teamQuery = hotStatement("team_by_id", (db, $: Params<{ teamId: string }>) =>
  db.select().from(teams).where(eq(teams.id, $.teamId)).limit(1),
);

/** The actor's membership of one team, or null when it may not act there. */
export async function findMembership(db: DbOrTx, actor: Actor, teamId: string): Promise<Membership | null> {
  if (actor.boundTeamId && actor.boundTeamId !== teamId) return null;
  const [row] = await membershipQuery(db, { teamId, userId: actor.userId });
  if (row) return row;
  if (actor.boundTeamId === teamId) {
    // A key stays bound to its team even if its creator's membership changed since.
    const [team] = await teamQuery(db, { teamId });
    return team ? { team, role: "member" } : null;
  }
  return null;
}

/**
 * The team an action targets. An explicit `teamId` must be one the actor may act on (a bound credential
 * naming another team is a 403 team mismatch); without one, keys use their team and users their personal team.
 */
export async function resolveTargetTeam(
  db: DbOrTx,
  actor: Actor,
  teamId: string | undefined,
): Promise<Membership> {
  if (teamId !== undefined) {
    if (actor.boundTeamId && actor.boundTeamId !== teamId) {
      throw new ApiError(
        "team_mismatch",
        `This credential is bound to team ${actor.boundTeamId} and cannot act on team ${teamId}.`,
        {
          param: "teamId",
        },
      );
    }
    const membership = await findMembership(db, actor, teamId);
    if (!membership)
      throw new ApiError("team_not_found", `No such team: ${teamId}.`, {
        param: "teamId",
      });
    return membership;
  }
  if (actor.boundTeamId) {
    const membership = await findMembership(db, actor, actor.boundTeamId);
    if (!membership) throw new ApiError("team_not_found", "The credential's team no longer exists.");
    return membership;
  }
  const [personal] = await db
    .select({ team: teams, role: teamMembers.role })
    .from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .where(eq(teamMembers.userId, actor.userId))
    .orderBy(asc(teamMembers.createdAt))
    .limit(1);
  if (!personal)
    throw new ApiError("team_not_found", "You belong to no team; create one first.", { param: "teamId" });
  return personal;
}

export function requireRole(membership: Membership, roles: Membership["role"][], action: string): void {
  if (!roles.includes(membership.role)) {
    throw new ApiError("insufficient_role", `Only a team ${roles.join(" or ")} can ${action}.`);
  }
}
