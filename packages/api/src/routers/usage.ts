import { IdParam, PlanChangeInput, Usage, UsageQuery } from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { apiProcedure, router } from "../trpc/init";

const tags = ["Usage"];

export const usageRouter = router({
  // GET /usage — the team's plan, limits and this billing period's usage; spends no request budget
  get: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/usage",
        tags,
        summary: "Retrieve usage and limits",
        description:
          "Limits and remaining quota are integers; -1 means unlimited. The billing period is the calendar month (UTC).",
      },
      unmetered: true,
    })
    .input(UsageQuery)
    .output(Usage)
    .query(({ ctx, input }) => core.readUsage(ctx.core, ctx.actor, input.teamId)),

  // POST /teams/{id}/plan — switch the team's plan (owner, signed in; Enterprise is set up by an operator)
  changePlan: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/teams/{id}/plan",
        tags,
        summary: "Change a team's plan",
        description:
          "Self-service switch between free, team and pro for a team owner; no payment is taken. Answers the " +
          "team's usage under the new plan.",
      },
      sessionOnly: true,
    })
    .input(PlanChangeInput.extend({ id: IdParam }))
    .output(Usage)
    .mutation(async ({ ctx, input }) => {
      const usage = await core.changeTeamPlan(ctx.core, ctx.actor, input.id, input.plan);
      // The new per-minute budget applies on this instance at once; elsewhere within the meter cache's lifetime.
      ctx.services.limits.meters.forgetTeam(input.id);
      return usage;
    }),
});
