import type { PlanLimits } from "@rubricon/contracts";
import { type DbOrTx, teamMembers, teams } from "@rubricon/db";
import { asc, eq } from "drizzle-orm";
import type { Actor } from "../../kernel";
import { limitsFor } from "./plans";

export interface MeteredTeam {
  teamId: string;
  limits: PlanLimits;
}

/**
 * The team whose per-minute budget a request spends. Keys and OAuth tokens are bound to one team. A signed-in
 * user (or plugin) may belong to several, and a request does not always say which it is for, so it spends the
 * budget of the team its writes land on by default: the personal (oldest) team, the `teamId` whoami reports.
 * Null for a user in no team, or a token naming a team that no longer exists.
 */
export async function meteredTeam(db: DbOrTx, actor: Actor): Promise<MeteredTeam | null> {
  const [row] = actor.boundTeamId
    ? await db
        .select({ id: teams.id, plan: teams.plan, customLimits: teams.customLimits })
        .from(teams)
        .where(eq(teams.id, actor.boundTeamId))
        .limit(1)
    : await db
        .select({ id: teams.id, plan: teams.plan, customLimits: teams.customLimits })
        .from(teamMembers)
        .innerJoin(teams, eq(teams.id, teamMembers.teamId))
        .where(eq(teamMembers.userId, actor.userId))
        .orderBy(asc(teamMembers.createdAt))
        .limit(1);
  return row ? { teamId: row.id, limits: limitsFor(row) } : null;
}
