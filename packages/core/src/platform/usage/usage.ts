import { QUOTA_METRICS, type QuotaMetric, UNLIMITED, type Usage } from "@rubricon/contracts";
import { type DbOrTx, hotStatement, type Params, teams, usageCounters } from "@rubricon/db";
import { and, eq, sql } from "drizzle-orm";
import { ApiError } from "../../kernel";
import { limitsFor, type TeamPlan } from "./plans";
import { addExact, addSpread, nearKey, nearLimit, type UsageValues } from "./shards";
import { billingPeriod, settleUsage, type UsageMetric, type UsageOptions, usageTerms } from "./terms";

export {
  countAhead,
  readTotalAhead,
  type TotalAhead,
  USAGE_SHARDS,
  UsageNearLimit,
} from "./shards";
export {
  billingPeriod,
  settleUsage,
  type UsageMetric,
  type UsageOptions,
  type UsageTerms,
  usageTerms,
} from "./terms";

// Read by every rating and create.
const planOfTeam = hotStatement("team_plan", (db, $: Params<{ teamId: string }>) =>
  db
    .select({ plan: teams.plan, customLimits: teams.customLimits })
    .from(teams)
    .where(eq(teams.id, $.teamId))
    .limit(1),
);

/** The team's plan and custom limits, which its quotas follow. */
export async function teamPlan(db: DbOrTx, teamId: string): Promise<TeamPlan> {
  const [team] = await planOfTeam(db, { teamId });
  if (!team) throw ApiError.notFound("team_not_found", `No such team: ${teamId}.`);
  return team;
}

// Every create runs one of these in its transaction.
function usageUpsert(withinLimit: boolean) {
  return hotStatement(withinLimit ? "add_usage_within" : "add_usage", (db, $: Params<UsageValues>) =>
    db
      .insert(usageCounters)
      .values({ teamId: $.teamId, periodStart: $.periodStart, metric: $.metric, count: $.amount })
      .onConflictDoUpdate({
        target: [usageCounters.teamId, usageCounters.periodStart, usageCounters.metric, usageCounters.shard],
        set: { count: sql`${usageCounters.count} + ${$.amount}::int` },
        ...(withinLimit
          ? { setWhere: sql`${usageCounters.count} + ${$.amount}::int <= ${$.limit}::int` }
          : {}),
      })
      .returning({ count: usageCounters.count }),
  );
}
const addUsage = usageUpsert(false);
const addUsageWithin = usageUpsert(true);

/**
 * Counts `amount` of billable work against the team's monthly quota, in the caller's transaction, so the count
 * exists exactly when the work does. Refuses with 429 `quota_exceeded` when the work would pass the quota: the
 * increment is one conditional upsert, and Postgres re-checks its condition against the latest committed count
 * when concurrent transactions race for the row, so the quota is never over-issued. Under the request's `log`
 * policy the work is counted, logged and allowed. Answers the period's new total.
 *
 * Autouser ratings are counted when a run completes (a failed run consumes nothing): check `quotaRemaining`
 * before starting a run and call this in the transaction that marks it completed.
 *
 * `team` is the team's id, or its row when the caller has already read it (saving a read in the transaction).
 */
export async function recordUsage(
  tx: DbOrTx,
  team: string | ({ id: string } & TeamPlan),
  metric: UsageMetric,
  now: Date,
  amount = 1,
  opts: UsageOptions = {},
): Promise<number> {
  const withPlan = typeof team === "string" ? { id: team, ...(await teamPlan(tx, team)) } : team;
  const terms = usageTerms(withPlan, metric, now, amount, opts);
  const values = {
    teamId: terms.teamId,
    periodStart: terms.periodStart,
    metric,
    amount,
    limit: terms.within ?? 0,
  };
  if (opts.spread && amount === 1) {
    if (opts.spread === "fast" && !nearLimit.has(nearKey(terms))) return addSpread(tx, terms, values);
    if (terms.within !== null) return addExact(tx, terms, values);
    return addSpread(tx, terms, values);
  }
  const [row] = await (terms.within !== null ? addUsageWithin : addUsage)(tx, values);
  return settleUsage(terms, row?.count ?? null);
}

async function usedThisPeriod(db: DbOrTx, teamId: string, now: Date): Promise<Record<QuotaMetric, number>> {
  const rows = await db
    .select({ metric: usageCounters.metric, count: usageCounters.count })
    .from(usageCounters)
    .where(and(eq(usageCounters.teamId, teamId), eq(usageCounters.periodStart, billingPeriod(now).start)));
  const used = { autouser_ratings_mo: 0, human_ratings_mo: 0, evals_mo: 0 };
  // A metric's count is the sum of its shards.
  for (const r of rows) used[r.metric] += r.count;
  return used;
}

/** What is left of a quota this period: null when unlimited. A pre-flight check; `recordUsage` decides. */
export async function quotaRemaining(
  db: DbOrTx,
  teamId: string,
  metric: UsageMetric,
  now: Date,
): Promise<number | null> {
  const limit = limitsFor(await teamPlan(db, teamId))[metric];
  if (limit === null) return null;
  return Math.max(0, limit - (await usedThisPeriod(db, teamId, now))[metric]);
}

/** The Usage object of the contract; unlimited quotas show as -1. */
export async function teamUsage(db: DbOrTx, teamId: string, now: Date): Promise<Usage> {
  const team = await teamPlan(db, teamId);
  const limits = limitsFor(team);
  const used = await usedThisPeriod(db, teamId, now);
  const { start, end } = billingPeriod(now);
  const quota = (m: QuotaMetric) => limits[m] ?? UNLIMITED;
  const left = (m: QuotaMetric) => {
    const limit = limits[m];
    return limit === null ? UNLIMITED : Math.max(0, limit - used[m]);
  };
  const per = <T>(f: (m: QuotaMetric) => T) =>
    Object.fromEntries(QUOTA_METRICS.map((m) => [m, f(m)])) as Record<QuotaMetric, T>;
  return {
    object: "usage",
    teamId,
    plan: team.plan,
    period: { start: start.toISOString(), end: end.toISOString() },
    limits: { rpm: limits.rpm, ...per(quota) },
    used,
    remaining: per(left),
  };
}
