import { PLAN_LIMITS, type Plan, type PlanLimits, type QuotaMetric } from "@rubricon/contracts";
import type { CustomLimitKey, CustomLimits } from "../admin/bootstrap";

/** Which operator-set limit (`admin set-limits`) overrides which plan limit. */
const CUSTOM_KEY_OF: Record<keyof PlanLimits, CustomLimitKey> = {
  rpm: "requestsPerMinute",
  autouser_ratings_mo: "autouserRatingsPerMonth",
  human_ratings_mo: "humanRatingsPerMonth",
  evals_mo: "evaluations",
};

export interface TeamPlan {
  plan: Plan;
  customLimits: CustomLimits | Record<string, number> | null;
}

/**
 * A team's limits: its plan's, with an operator's custom values on top for Enterprise only. Custom values on
 * other plans stay stored but dormant, so a self-service plan switch always means exactly that plan's limits.
 */
export function limitsFor(team: TeamPlan): PlanLimits {
  const base = PLAN_LIMITS[team.plan];
  if (team.plan !== "enterprise" || !team.customLimits) return { ...base };
  const custom = team.customLimits as Record<string, number | undefined>;
  const pick = <K extends keyof PlanLimits>(name: K): PlanLimits[K] => {
    const value = custom[CUSTOM_KEY_OF[name]];
    return (typeof value === "number" ? value : base[name]) as PlanLimits[K];
  };
  return {
    rpm: pick("rpm"),
    autouser_ratings_mo: pick("autouser_ratings_mo"),
    human_ratings_mo: pick("human_ratings_mo"),
    evals_mo: pick("evals_mo"),
  };
}

export function quotaOf(team: TeamPlan, metric: QuotaMetric): number | null {
  return limitsFor(team)[metric];
}
