/**
 * Results and agreement from counts Postgres aggregates, instead of every rating row. Alpha only needs, per unit
 * (template × comparison) and kind of rater, how often each value was given; means and intervals need the values
 * per template, which a rating scale's few points compress into (value, count) pairs; per comparison and per rater
 * a count and a sum suffice. One statement scans the evaluation's ratings once and answers a few thousand rows
 * where loading answered one per rating. The figures equal those computed from the rows (`computeResults`,
 * `computeAgreement`), the bootstrap interval included: comparisons keep the order of their first rating.
 */
import type { AlphaMetric, AlphaStat, EvaluationAgreement, EvaluationResults } from "@rubricon/contracts";
import { type DbOrTx, publicRaters, ratings } from "@rubricon/db";
import { type SQL, sql } from "drizzle-orm";
import type { EvaluationRow } from "../evaluations/serialize";
import { type Cells, computeAgreementOfCells, overallAgreementOfCells } from "./agreement";
import { loadStatsComparisons, loadStatsTemplates, type StatsTemplate } from "./load";
import { sseDimension, sxsDimension } from "./results";

interface RaterTally {
  raterType: "user" | "public" | "autouser";
  raterId: string | null;
  ratingCount: number;
  excludedCount: number;
  /** Ratings that gave a value to any template: a rater without an id counts once per such rating. */
  valued: number;
  /** Per template index: values given and their sum. */
  n: number[];
  sum: number[];
}

/** Everything results and agreement are computed from, aggregated by Postgres. */
export interface StatsTally {
  evaluation: EvaluationRow;
  templates: StatsTemplate[];
  comparisons: { id: string; name: string | null; position: number }[];
  ratingCount: number;
  autouserRatingCount: number;
  excludedCount: number;
  /** Rated comparisons, in the order of their first rating. */
  ratedComparisons: string[];
  /** Ratings and skipped ones per rated comparison. */
  comparisonCounts: Map<string, { ratings: number; skipped: number }>;
  /** Per template index, comparison index (in `ratedComparisons`) and kind (human, autouser): value → count. */
  units: [Map<number, number>, Map<number, number>][][];
  /** Raters in the order of their first rating; raters without an id are one entry per kind. */
  raters: RaterTally[];
}

/** A row of the tally's parts, as `loadStatsTally` answers them and the stored tally is read. */
export interface TallyRow {
  part: "c" | "u" | "r" | "d";
  idx: number | null;
  comparison_id: string | null;
  rater_type: string | null;
  rater_id: string | null;
  value: number | null;
  n: number | string;
  skipped: number | string | null;
  valued: number | string | null;
  sum: number | null;
  ord: number | string | null;
}

export function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows?: T[] }).rows ?? []);
}

/** The template ids as a text[] literal (`array[]::text[]` when there are none). */
export function templateIdArray(ids: string[]): SQL {
  return ids.length > 0
    ? sql`array[${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )}]::text[]`
    : sql`array[]::text[]`;
}

/**
 * The common table expressions `x`, `a`, `c` and `g` that aggregate the evaluation's ratings named by `from` (all of
 * them, or those a fold takes from the queue), public raters the owners excluded left out: per comparison (`c`) its
 * count and first rating; per template, comparison, kind and value (`a`, part `u`) a count; per rater (`g`) its
 * counts and first rating; per rater and template (`a`, part `d`) the values' count and sum.
 */
export function tallyCtes(evaluationId: string, ids: string[], from: SQL): SQL {
  const idArray = templateIdArray(ids);
  const unnested = ids.length > 0 ? idArray : sql`array[null]::text[]`;
  // One row per rating and template (a rating with no template still gives one, its value null), so that one
  // hashed pass answers every grouping at once: each rating is read, filtered and its jsonb taken apart once,
  // where grouping each part separately materialized the ratings and read them four times.
  return sql`x as (
      select ${ratings.id} as id, ${ratings.createdAt} as created_at, ${ratings.comparisonId} as comparison_id,
        ${ratings.raterType} as rater_type,
        coalesce(${ratings.userId}, ${ratings.publicRaterId}, ${ratings.autouserId}) as rater_id,
        ${ratings.skipReason} is not null as skipped, t.idx::int as idx,
        case when ${ratings.skipReason} is null then (${ratings.dimensionRatings} -> t.id)::float8 end as value,
        ${ratings.skipReason} is null and ${ratings.dimensionRatings} ?| ${idArray} as valued
      from ${from}
        cross join unnest(${unnested}) with ordinality as t(id, idx)
      where ${ratings.evaluationId} = ${evaluationId}
        and not exists (select 1 from ${publicRaters} where ${publicRaters.id} = ${ratings.publicRaterId}
          and ${publicRaters.excludedAt} is not null)
    ),
    -- Per rating counts come from its first template's row; values from every row that has one. First ratings
    -- without joins: per group and instant the smallest id here, then per group the earliest instant below.
    a as materialized (
      select case grouping(comparison_id, rater_type, rater_id, created_at, idx, value)
          when 27 then 'ci' when 35 then 'ri' when 28 then 'u' when 37 then 'd' end as part,
        comparison_id, rater_type, rater_id, created_at, idx, value, rater_type = 'autouser' as autouser,
        count(*) filter (where idx = 1) as n, count(*) filter (where idx = 1 and skipped) as skipped,
        count(*) filter (where idx = 1 and valued) as valued, count(value) as nv, sum(value) as sv, min(id) as id
      from x
      group by grouping sets ((comparison_id, created_at), (rater_type, rater_id, created_at),
        (idx, comparison_id, rater_type = 'autouser', value), (rater_type, rater_id, idx))
    ),
    c as (
      select comparison_id, sum(n) as n, sum(skipped) as skipped,
        (array_agg(created_at order by created_at))[1] as first_at, (array_agg(id order by created_at))[1] as first_id
      from a where part = 'ci' group by comparison_id
    ),
    g as (
      select rater_type, rater_id, sum(n) as n, sum(skipped) as skipped, sum(valued) as valued,
        (array_agg(created_at order by created_at))[1] as first_at, (array_agg(id order by created_at))[1] as first_id
      from a where part = 'ri' group by rater_type, rater_id
    )`;
}

/**
 * One pass over the evaluation's ratings (public raters the owners excluded left out, as the statistics do):
 * per comparison its count and first rating; per template, comparison, kind and value a count; per rater its
 * counts and first rating; per rater and template the values' count and sum. Ratings without a rater id (their
 * user was deleted) are grouped per rating for counting raters and merged per kind for `perRater`. The reference
 * the stored tally (`storedStatsTally`) is rebuilt with and compared to.
 */
export async function loadStatsTally(
  db: DbOrTx,
  row: EvaluationRow,
  knownTemplates?: StatsTemplate[],
): Promise<StatsTally> {
  const [templates, comparisons] = await Promise.all([
    knownTemplates ?? loadStatsTemplates(db, row),
    loadStatsComparisons(db, row),
  ]);
  const ids = templates.map((t) => t.id);
  const result = await db.execute(sql`
    with ${tallyCtes(row.id, ids, sql`${ratings}`)}
    select 'c' as part, null::int as idx, comparison_id, null::text as rater_type, null::text as rater_id,
      null::float8 as value, n, skipped, null::numeric as valued, null::float8 as sum,
      row_number() over (order by first_at, first_id) as ord
    from c
    union all
    select 'u', idx, comparison_id, case when autouser then 'autouser' else 'human' end, null, value, nv, null,
      null, null, null
    from a where part = 'u' and value is not null
    union all
    select 'r', null, null, rater_type, rater_id, null, n, skipped, valued, null,
      row_number() over (order by first_at, first_id)
    from g
    union all
    select 'd', idx, null, rater_type, rater_id, null, nv, null, null, sv, null
    from a where part = 'd' and nv > 0`);
  return tallyOfRows(row, templates, comparisons, rowsOf<TallyRow>(result));
}

/**
 * The tally from its parts' rows: comparisons (`c`) and raters (`r`) in the order `ord` gives (their first
 * rating's), units (`u`) and per rater and template sums (`d`) in any order.
 */
export function tallyOfRows(
  row: EvaluationRow,
  templates: StatsTemplate[],
  comparisons: StatsTally["comparisons"],
  rows: TallyRow[],
): StatsTally {
  const ratedComparisons: string[] = [];
  const comparisonIndex = new Map<string, number>();
  const raters: RaterTally[] = [];
  const raterIndex = new Map<string, number>();
  const keyOf = (type: string | null, id: string | null) => `${type}\u0000${id ?? ""}`;
  const byOrder = (part: TallyRow["part"]) =>
    rows.filter((r) => r.part === part).sort((a, b) => Number(a.ord) - Number(b.ord));
  let ratingCount = 0;
  let autouserRatingCount = 0;
  let excludedCount = 0;
  const comparisonCounts: StatsTally["comparisonCounts"] = new Map();
  for (const c of byOrder("c")) {
    comparisonIndex.set(c.comparison_id!, ratedComparisons.length);
    ratedComparisons.push(c.comparison_id!);
    comparisonCounts.set(c.comparison_id!, { ratings: Number(c.n), skipped: Number(c.skipped) });
  }
  for (const r of byOrder("r")) {
    const n = Number(r.n);
    ratingCount += n;
    if (r.rater_type === "autouser") autouserRatingCount += n;
    excludedCount += Number(r.skipped);
    raterIndex.set(keyOf(r.rater_type, r.rater_id), raters.length);
    raters.push({
      raterType: r.rater_type as RaterTally["raterType"],
      raterId: r.rater_id,
      ratingCount: n,
      excludedCount: Number(r.skipped),
      valued: Number(r.valued),
      n: templates.map(() => 0),
      sum: templates.map(() => 0),
    });
  }
  const units: StatsTally["units"] = templates.map(() =>
    ratedComparisons.map(() => [new Map<number, number>(), new Map<number, number>()]),
  );
  for (const r of rows) {
    if (r.part === "u") {
      const kind = r.rater_type === "autouser" ? 1 : 0;
      units[r.idx! - 1]![comparisonIndex.get(r.comparison_id!)!]![kind]!.set(Number(r.value), Number(r.n));
    } else if (r.part === "d") {
      const rater = raters[raterIndex.get(keyOf(r.rater_type, r.rater_id))!]!;
      rater.n[r.idx! - 1] = Number(r.n);
      rater.sum[r.idx! - 1] = Number(r.sum);
    }
  }
  return {
    evaluation: row,
    templates,
    comparisons,
    ratingCount,
    autouserRatingCount,
    excludedCount,
    ratedComparisons,
    comparisonCounts,
    units,
    raters,
  };
}

/** A (value → count) tally as the values, ascending. */
function expand(counts: Map<number, number> | undefined, into: number[] = []): number[] {
  if (!counts) return into;
  for (const v of [...counts.keys()].sort((a, b) => a - b)) {
    for (let i = counts.get(v)!; i > 0; i--) into.push(v);
  }
  return into;
}

function cellsOf(tally: StatsTally): Cells {
  const n = tally.ratedComparisons.length;
  const cells: Cells = {
    comparisons: n,
    human: [],
    autouser: [],
    raters: (kind, templates) => {
      const all = templates.length === tally.templates.length && templates.length > 1;
      let count = 0;
      for (const r of tally.raters) {
        if ((r.raterType === "autouser") !== (kind === "autouser")) continue;
        if (all) count += r.raterId === null ? r.valued : r.valued > 0 ? 1 : 0;
        else {
          const given = r.n[templates[0]!]!;
          count += r.raterId === null ? given : given > 0 ? 1 : 0;
        }
      }
      return count;
    },
  };
  for (let t = 0; t < tally.templates.length; t++) {
    for (let c = 0; c < n; c++) {
      const unit = tally.units[t]![c]!;
      cells.human.push(expand(unit[0]));
      cells.autouser.push(expand(unit[1]));
    }
  }
  return cells;
}

function kindsOf(tally: StatsTally): { anyAutouser: boolean; anyHuman: boolean } {
  return {
    anyAutouser: tally.autouserRatingCount > 0,
    anyHuman: tally.ratingCount - tally.autouserRatingCount > 0,
  };
}

export function computeAgreementOfTally(
  tally: StatsTally,
  computedAt: Date,
  metric?: AlphaMetric,
): EvaluationAgreement {
  return computeAgreementOfCells(tally, cellsOf(tally), kindsOf(tally), computedAt, metric);
}

export function overallAgreementOfTally(
  tally: StatsTally,
  opts: { metric?: AlphaMetric; interval?: boolean } = {},
): AlphaStat {
  return overallAgreementOfCells(tally, cellsOf(tally), opts);
}

export function computeResultsOfTally(tally: StatsTally, computedAt: Date): EvaluationResults {
  const { evaluation, templates } = tally;
  const comparisonIndex = new Map(tally.ratedComparisons.map((id, i) => [id, i]));
  const valuesOf = (t: number) => {
    const counts = new Map<number, number>();
    for (const unit of tally.units[t]!) {
      for (const kind of unit) for (const [v, k] of kind) counts.set(v, (counts.get(v) ?? 0) + k);
    }
    return expand(counts);
  };
  const comparisonCell = (t: number, c: number | undefined) => {
    if (c === undefined) return { n: 0, mean: null };
    let n = 0;
    let sum = 0;
    for (const kind of tally.units[t]![c]!) {
      for (const [v, k] of kind) {
        n += k;
        sum += v * k;
      }
    }
    return { n, mean: n === 0 ? null : sum / n };
  };
  // Ratings without a rater id are one rater per kind here, as `computeResults` groups them.
  const perRater: RaterTally[] = [];
  const merged = new Map<string, RaterTally>();
  for (const r of tally.raters) {
    if (r.raterId !== null) {
      perRater.push(r);
      continue;
    }
    const into = merged.get(r.raterType);
    if (!into) {
      const copy = { ...r, n: [...r.n], sum: [...r.sum] };
      merged.set(r.raterType, copy);
      perRater.push(copy);
      continue;
    }
    into.ratingCount += r.ratingCount;
    into.excludedCount += r.excludedCount;
    for (let t = 0; t < templates.length; t++) {
      into.n[t]! += r.n[t]!;
      into.sum[t]! += r.sum[t]!;
    }
  }
  return {
    object: "evaluation_results",
    evaluationId: evaluation.id,
    type: evaluation.type,
    status: evaluation.status,
    computedAt: computedAt.toISOString(),
    ratingCount: tally.ratingCount,
    humanRatingCount: tally.ratingCount - tally.autouserRatingCount,
    autouserRatingCount: tally.autouserRatingCount,
    excludedCount: tally.excludedCount,
    dimensions: templates.map((t, i) =>
      evaluation.type === "SSE" ? sseDimension(t, valuesOf(i)) : sxsDimension(t, valuesOf(i)),
    ),
    perComparison: tally.comparisons.map((c) => {
      const index = comparisonIndex.get(c.id);
      const counts = tally.comparisonCounts.get(c.id);
      return {
        comparisonId: c.id,
        name: c.name,
        position: c.position,
        ratingCount: counts?.ratings ?? 0,
        excludedCount: counts?.skipped ?? 0,
        dimensions: Object.fromEntries(templates.map((t, i) => [t.id, comparisonCell(i, index)])),
      };
    }),
    perRater: perRater.map((r) => ({
      raterType: r.raterType,
      raterId: r.raterId,
      ratingCount: r.ratingCount,
      excludedCount: r.excludedCount,
      dimensions: Object.fromEntries(
        templates.map((t, i) => [t.id, { n: r.n[i]!, mean: r.n[i] === 0 ? null : r.sum[i]! / r.n[i]! }]),
      ),
    })),
    agreement: overallAgreementOfTally(tally, { interval: true }),
  };
}
