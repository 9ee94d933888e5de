import { type Plan, SELF_SERVICE_PLANS, type Usage } from "@rubricon/contracts";
import { teams } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { findMembership, requireRole, resolveTargetTeam } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError } from "../../kernel";
import { teamUsage } from "./usage";

function isSelfService(plan: Plan): boolean {
  return (SELF_SERVICE_PLANS as readonly Plan[]).includes(plan);
}

/** Usage of a team the actor may act on; without `teamId`, the credential's team (for users, the personal team). */
export async function readUsage(ctx: CoreContext, actor: Actor, teamId: string | undefined): Promise<Usage> {
  const { team } = await resolveTargetTeam(ctx.db, actor, teamId);
  return teamUsage(ctx.db, team.id, ctx.clock.now());
}

/**
 * Self-service plan switch by a team owner; no payment is taken. Enterprise is arranged with us, so neither
 * moving onto it nor off it is self-service. Answers the team's usage under the new plan.
 */
export async function changeTeamPlan(
  ctx: CoreContext,
  actor: Actor,
  teamId: string,
  plan: Plan,
): Promise<Usage> {
  return ctx.db.transaction(async (tx) => {
    const membership = await findMembership(tx, actor, teamId);
    if (!membership) throw ApiError.notFound("team_not_found", `No such team: ${teamId}.`);
    requireRole(membership, ["owner"], "change the team's plan");
    if (!isSelfService(plan) || !isSelfService(membership.team.plan)) {
      throw new ApiError(
        "plan_not_self_service",
        "Enterprise and self-hosted plans are set up by an operator (`pnpm admin set-plan`); they cannot be " +
          "switched here.",
        { param: "plan" },
      );
    }
    const now = ctx.clock.now();
    if (membership.team.plan !== plan) {
      await tx.update(teams).set({ plan, updatedAt: now }).where(eq(teams.id, teamId));
    }
    return teamUsage(tx, teamId, now);
  });
}
