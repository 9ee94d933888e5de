import type { QuotaMetric } from "@rubricon/contracts";
import { ApiError, ENFORCE_LIMITS, type LimitPolicy } from "../../kernel";
import { logOverLimit } from "./enforcement";
import { limitsFor, type TeamPlan } from "./plans";

export type UsageMetric = QuotaMetric;

const METRIC_NOUN: Record<QuotaMetric, string> = {
  autouser_ratings_mo: "autouser ratings",
  human_ratings_mo: "human ratings",
  evals_mo: "evaluations",
};

/** Billing periods are calendar months in UTC; the period holding `now` starts at its first instant. */
export function billingPeriod(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

function quotaExceeded(metric: QuotaMetric, limit: number, periodEnd: Date): ApiError {
  return new ApiError(
    "quota_exceeded",
    `This team has used its ${limit} ${METRIC_NOUN[metric]} for this billing period; the quota renews on ` +
      `${periodEnd.toISOString()}. Upgrade the plan for more.`,
    { details: { metric, limit, periodEnd: periodEnd.toISOString() } },
  );
}

/** How `amount` of `metric` is counted for a team now, before the increment is sent. */
export interface UsageTerms {
  teamId: string;
  metric: UsageMetric;
  periodStart: Date;
  periodEnd: Date;
  /** The quota, null when unlimited. */
  limit: number | null;
  /** The total the increment must stay within, or null when it is counted whatever the total (log policy). */
  within: number | null;
  policy: LimitPolicy;
}

export interface UsageOptions {
  /** Count work already done (a completed autouser run) even past the quota: it was checked when planned. */
  allowOver?: boolean;
  /** The request's policy (`CoreContext.limits`); without one the quota is enforced. */
  policy?: LimitPolicy;
  /**
   * Count one on the connection's own shard of the counter (for a metric many transactions of one team count at
   * once): `fast` may throw `UsageNearLimit` near the quota, then the caller retries its transaction with `exact`.
   */
  spread?: "fast" | "exact";
}

/**
 * The terms of an increment, for statements that count usage along with other writes (`recordUsage`, the
 * evaluation create). Refuses at once an amount that alone passes an enforced quota.
 */
export function usageTerms(
  team: { id: string } & TeamPlan,
  metric: UsageMetric,
  now: Date,
  amount = 1,
  opts: UsageOptions = {},
): UsageTerms {
  if (!Number.isInteger(amount) || amount < 0)
    throw new Error(`usage amount must be a whole number: ${amount}`);
  const { start, end } = billingPeriod(now);
  const limit = limitsFor(team)[metric];
  const policy = opts.policy ?? ENFORCE_LIMITS;
  const enforce = limit !== null && policy.mode === "enforce" && !opts.allowOver;
  if (enforce && amount > limit) throw quotaExceeded(metric, limit, end);
  return {
    teamId: team.id,
    metric,
    periodStart: start,
    periodEnd: end,
    limit,
    within: enforce ? limit : null,
    policy,
  };
}

/**
 * The outcome of an increment sent on `terms`: the period's new total, or 429 `quota_exceeded` when the
 * conditional increment wrote nothing (`count` null). A total past the quota under the log policy is logged.
 */
export function settleUsage(terms: UsageTerms, count: number | null): number {
  const { limit, metric, teamId } = terms;
  if (count === null) throw quotaExceeded(metric, limit!, terms.periodEnd);
  if (limit !== null && count > limit) {
    logOverLimit({ limit: "quota", name: metric, teamId, max: limit, mode: terms.policy.mode }, terms.policy);
  }
  return count;
}
