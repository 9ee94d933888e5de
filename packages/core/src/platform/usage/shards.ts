import { type DbOrTx, hotStatement, type Params, usageCounters } from "@rubricon/db";
import { and, eq, sql } from "drizzle-orm";
import { together } from "../../kernel";
import type { TeamPlan } from "./plans";
import {
  billingPeriod,
  settleUsage,
  type UsageMetric,
  type UsageOptions,
  type UsageTerms,
  usageTerms,
} from "./terms";

export interface UsageValues {
  teamId: string;
  periodStart: Date;
  metric: UsageMetric;
  amount: number;
  /** Read only when the increment is conditional. */
  limit: number;
}

/**
 * Shards a spread count lands on besides shard 0: the connection's own (`pg_backend_pid()`), so one team's raters
 * on different connections update different rows, as the evaluation revision shards do.
 */
export const USAGE_SHARDS = 64;

/**
 * Thrown by a spread increment that finds the quota too near to be sure of its count without taking every shard
 * of the counter: the caller runs its transaction again with `spread: "exact"`.
 */
export class UsageNearLimit extends Error {
  constructor() {
    super("usage is near the quota; count it exactly");
  }
}

/**
 * Counters (team, month, metric, quota) this process saw near their quota: their increments go straight to the exact way,
 * not the fast one first. A hint only (forgetting it costs one retried transaction, never a wrong count).
 */
export const nearLimit = new Set<string>();
const NEAR_LIMIT_REMEMBERED = 10_000;

export function nearKey(terms: UsageTerms): string {
  // With the quota: a team whose quota is raised counts the fast way again.
  return `${terms.teamId}\u0000${terms.periodStart.getTime()}\u0000${terms.metric}\u0000${terms.within}`;
}

/** Remembers the counter as near its quota, and answers the error that sends the caller the exact way. */
function nearLimitFor(terms: UsageTerms): UsageNearLimit {
  if (nearLimit.size >= NEAR_LIMIT_REMEMBERED) nearLimit.clear();
  nearLimit.add(nearKey(terms));
  return new UsageNearLimit();
}

// Raw SQL binds no column encoder: the period goes as text, typed in SQL.
const period = (v: UsageValues) => sql`${v.periodStart.toISOString()}::timestamptz`;

function counterKey(v: UsageValues) {
  const u = usageCounters;
  return sql`${u.teamId} = ${v.teamId} and ${u.periodStart} = ${period(v)} and ${u.metric} = ${v.metric}`;
}

type CounterValues = Pick<UsageValues, "teamId" | "periodStart" | "metric">;

/**
 * One on the connection's shard; locks that shard row only. Every human rating runs it, so it is a hot statement
 * (built once), as is the total read after it.
 */
const bumpShard = hotStatement("add_usage_on_shard", (db, $: Params<CounterValues>) =>
  db
    .insert(usageCounters)
    .values({
      teamId: $.teamId,
      periodStart: $.periodStart,
      metric: $.metric,
      shard: sql`1 + pg_backend_pid() % ${sql.raw(String(USAGE_SHARDS))}`,
      count: 1,
    })
    .onConflictDoUpdate({
      target: [usageCounters.teamId, usageCounters.periodStart, usageCounters.metric, usageCounters.shard],
      set: { count: sql`${usageCounters.count} + 1` },
    }),
);

/**
 * The period's total as this statement sees it (committed counts and this transaction's own), and how many
 * transactions can be open at once on the server: every open transaction holds a connection, or is prepared.
 */
const spreadTotal = hotStatement("usage_total_and_open", (db, $: Params<CounterValues>) =>
  db
    .select({
      total: sql<number>`coalesce(sum(${usageCounters.count}), 0)::int`,
      open: sql<number>`(current_setting('max_connections')::int + current_setting('max_prepared_transactions')::int)`,
    })
    .from(usageCounters)
    .where(
      and(
        eq(usageCounters.teamId, $.teamId),
        // A placeholder compared in a condition is not encoded by the column as a value to insert is.
        eq(usageCounters.periodStart, sql.param($.periodStart, usageCounters.periodStart)),
        eq(usageCounters.metric, $.metric),
      ),
    ),
);

/**
 * Takes every shard row of the counter (creating the missing ones) in shard order: it waits for every open
 * transaction that has counted on a shard, and every later one waits for it.
 */
function lockAllShards(tx: DbOrTx, v: UsageValues) {
  return tx.execute(sql`insert into ${usageCounters} (team_id, period_start, metric, shard, count)
    select ${v.teamId}, ${period(v)}, ${v.metric}, g, 0 from generate_series(0, ${USAGE_SHARDS}::int) g
    on conflict (team_id, period_start, metric, shard) do update set count = ${usageCounters.count}`);
}

/** Adds to shard 0 when the total (exact: every shard is held) stays within the limit; no row past it. */
function addWithinHeld(tx: DbOrTx, v: UsageValues) {
  return tx.execute(sql`with total as (
      select coalesce(sum(${usageCounters.count}), 0)::int as t from ${usageCounters} where ${counterKey(v)})
    update ${usageCounters} set count = ${usageCounters.count} + ${v.amount}::int from total
    where ${counterKey(v)} and ${usageCounters.shard} = 0 and total.t + ${v.amount}::int <= ${v.limit}::int
    returning (total.t + ${v.amount}::int) as count`);
}

/**
 * The fast way for a spread count: one on the connection's shard, then the total read by the statement after it
 * (so after the shard row is held; both go in one round trip). Exact although concurrent increments cannot see one
 * another: an increment is let through only when the total it read plus every transaction that could be open at
 * once stays within the limit.
 * Of the increments that commit, take the one whose read came last; every one committed after that read was open
 * at it, so the final total is at most that read plus the open transactions. Nearer the limit it throws
 * `UsageNearLimit` for the exact way.
 */
export async function addSpread(tx: DbOrTx, terms: UsageTerms, values: UsageValues): Promise<number> {
  // Sent together, in this order, on the transaction's one connection: Postgres runs a connection's statements one
  // after another, so the total is still read once the shard row is held, without a round trip of its own.
  const [, [row]] = await together(bumpShard(tx, values), spreadTotal(tx, values));
  const total = Number(row!.total);
  if (terms.within !== null && total - values.amount + Number(row!.open) > terms.within)
    throw nearLimitFor(terms);
  return settleUsage(terms, total);
}

/** A spread counter's total read ahead of its increment (`readTotalAhead`), for `countAhead`. */
export interface TotalAhead {
  teamId: string;
  metric: UsageMetric;
  periodStart: Date;
  total: number;
  open: number;
}

/**
 * Reads the period's total of a spread counter early in a transaction (with its first statements), so that the
 * increment `countAhead` sends later needs no answer before the commit.
 */
export async function readTotalAhead(
  tx: DbOrTx,
  teamId: string,
  metric: UsageMetric,
  now: Date,
): Promise<TotalAhead> {
  const periodStart = billingPeriod(now).start;
  const [row] = await spreadTotal(tx, { teamId, periodStart, metric });
  return { teamId, metric, periodStart, total: Number(row!.total), open: Number(row!.open) };
}

/**
 * The fast way for a spread count of one, on a total read earlier in the same transaction (`readTotalAhead`):
 * decided now, before anything is sent, so the increment can leave with the commit. Throws `UsageNearLimit` when
 * that total leaves less room than every transaction that could be open at once (the caller retries with `exact`,
 * whose increment is conditional); otherwise answers the increment to send, which answers the total. Exact for the
 * reason `addSpread` is: the read is inside the transaction, so of the increments that commit, every one committed
 * after the latest read was open at it, and `open` bounds them (this one among them). The total answered (seen only
 * by the log policy's log) leaves out increments committed since the read.
 */
export function countAhead(
  team: { id: string } & TeamPlan,
  ahead: TotalAhead,
  now: Date,
  opts: UsageOptions = {},
): (tx: DbOrTx) => Promise<number> {
  const terms = usageTerms(team, ahead.metric, now, 1, opts);
  if (terms.teamId !== ahead.teamId || terms.periodStart.getTime() !== ahead.periodStart.getTime())
    throw new Error("countAhead: the total was read for another counter");
  if (terms.within !== null && (nearLimit.has(nearKey(terms)) || ahead.total + ahead.open > terms.within))
    throw nearLimitFor(terms);
  const values = { teamId: terms.teamId, periodStart: terms.periodStart, metric: ahead.metric };
  return (tx) => bumpShard(tx, values).then(() => settleUsage(terms, ahead.total + 1));
}

/**
 * The exact way: every shard held, the total read, one added to shard 0 only within the limit. Increments of the
 * counter queue one after another until this transaction ends; used only near the limit.
 */
export async function addExact(tx: DbOrTx, terms: UsageTerms, values: UsageValues): Promise<number> {
  await lockAllShards(tx, values);
  const added = await addWithinHeld(tx, values);
  const [row] = rowsOf<{ count: number }>(added);
  return settleUsage(terms, row ? Number(row.count) : null);
}

function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : ((result as { rows?: T[] }).rows ?? [])) as T[];
}
