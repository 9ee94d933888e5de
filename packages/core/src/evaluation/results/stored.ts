/**
 * The tally kept as ratings arrive. A trigger queues every inserted rating in `rating_tally_pending`; a fold takes
 * an evaluation's queued ratings and adds their aggregates to its stored tally (`rating_tally_rows`), in one
 * statement; a read folds what is queued and reads the stored rows (as many as comparisons and raters need, about
 * 13,000 for 100,000 ratings on 2,000 comparisons, whatever the number of ratings) instead of scanning every rating. Changes to stored ratings (deletes, a changed rater, an excluded public rater)
 * bump the evaluation's `rating_changes` by trigger, and a stored tally built at another value, or for other
 * templates, is rebuilt from every rating. Folds and rebuilds of one evaluation take its advisory lock, so they
 * come one after another; each reads the queue and the ratings in one snapshot, so a rating committed meanwhile is
 * left queued for the next, and none is counted twice or lost.
 */
import type { Db, DbOrTx } from "@rubricon/db";
import { evaluations, ratings, ratingTallyPending } from "@rubricon/db";
import { eq, type SQL, sql } from "drizzle-orm";
import type { EvaluationRow } from "../evaluations/serialize";
import { rowsOf, type StatsTally, type TallyRow, tallyCtes, tallyOfRows, templateIdArray } from "./aggregate";
import { loadStatsComparisons, loadStatsTemplates, type StatsTemplate } from "./load";

const lockKey = (evaluationId: string) => `rating_tally:${evaluationId}`;

/** The parts of `tallyCtes` as rows of `rating_tally_rows`. */
function partRows(evaluationId: string): SQL {
  return sql`
    select ${evaluationId}::text, 'c', 0, comparison_id, '', '', 0::float8, n, skipped, 0, 0::float8,
      first_at, first_id
    from c
    union all
    select ${evaluationId}::text, 'u', idx, comparison_id, case when autouser then 'autouser' else 'human' end, '',
      value, nv, 0, 0, 0, null, null
    from a where part = 'u' and value is not null
    union all
    select ${evaluationId}::text, 'r', 0, '', rater_type, coalesce(rater_id, ''), 0, n, skipped, valued, 0,
      first_at, first_id
    from g
    union all
    select ${evaluationId}::text, 'd', idx, '', rater_type, coalesce(rater_id, ''), 0, nv, 0, 0, sv, null, null
    from a where part = 'd' and nv > 0`;
}

const COLUMNS = sql.raw(
  "evaluation_id, part, idx, comparison_id, rater_type, rater_id, value, n, skipped, valued, sum, first_at, first_id",
);
const KEY = sql.raw("evaluation_id, part, idx, comparison_id, rater_type, rater_id, value");

/**
 * Folds the evaluation's queued ratings into its stored tally, in one statement: it checks the stored tally is
 * current (built for these templates, at the evaluation's `rating_changes`), deletes the queued rows it sees,
 * aggregates their ratings and adds the aggregates to the stored rows. `ok` is false (and nothing is done) when
 * the stored tally is missing or not current.
 */
async function fold(
  tx: DbOrTx,
  evaluationId: string,
  ids: string[],
): Promise<{ ok: boolean; folded: number }> {
  const [result] = rowsOf<{ ok: boolean | null; folded: number }>(
    await tx.execute(sql`
      with st as (
        select t.template_ids = ${templateIdArray(ids)} and t.rating_changes = e.rating_changes as ok
        from rating_tallies t join ${evaluations} e on e.id = t.evaluation_id
        where t.evaluation_id = ${evaluationId}
      ),
      fold_p as (
        delete from rating_tally_pending
        where evaluation_id = ${evaluationId} and coalesce((select ok from st), false)
        returning rating_id
      ),
      ${tallyCtes(evaluationId, ids, sql`fold_p join ${ratings} on ${ratings.id} = fold_p.rating_id`)},
      merged as (
        insert into rating_tally_rows as o (${COLUMNS})
        ${partRows(evaluationId)}
        on conflict (${KEY}) do update set
          n = o.n + excluded.n, skipped = o.skipped + excluded.skipped, valued = o.valued + excluded.valued,
          sum = o.sum + excluded.sum,
          first_at = case when (excluded.first_at, excluded.first_id) < (o.first_at, o.first_id)
            then excluded.first_at else o.first_at end,
          first_id = case when (excluded.first_at, excluded.first_id) < (o.first_at, o.first_id)
            then excluded.first_id else o.first_id end
        returning 1
      )
      select coalesce((select ok from st), false) as ok, (select count(*) from fold_p)::int as folded`),
  );
  return { ok: result?.ok === true, folded: Number(result?.folded ?? 0) };
}

/**
 * Builds the stored tally from every rating: the old rows go, then one statement empties the evaluation's queue and
 * aggregates its ratings in the same snapshot (a rating is either queued there or among the ratings seen, never
 * both after it), and records the `rating_changes` that snapshot saw.
 */
async function rebuild(tx: DbOrTx, evaluationId: string, ids: string[]): Promise<void> {
  await tx.execute(sql`delete from rating_tally_rows where evaluation_id = ${evaluationId}`);
  await tx.execute(sql`
    with rebuild_p as (delete from rating_tally_pending where evaluation_id = ${evaluationId}),
    ev as (select rating_changes from ${evaluations} where id = ${evaluationId}),
    ${tallyCtes(evaluationId, ids, sql`${ratings}`)},
    ins as (insert into rating_tally_rows (${COLUMNS}) ${partRows(evaluationId)} returning 1),
    st as (
      insert into rating_tallies (evaluation_id, template_ids, rating_changes)
      select ${evaluationId}, ${templateIdArray(ids)}, rating_changes from ev
      on conflict (evaluation_id) do update set template_ids = excluded.template_ids,
        rating_changes = excluded.rating_changes, built_at = now(), folded_at = now()
      returning 1
    )
    select (select count(*) from ins)::int as n`);
}

/** Folds the evaluation's queue into its stored tally, or rebuilds the tally when it is missing or not current. */
async function bringUpToDate(
  tx: DbOrTx,
  evaluationId: string,
  ids: string[],
): Promise<{ folded: number; rebuilt: boolean }> {
  // Most reads find the tally current and nothing queued: a small statement says so, where the fold's statement
  // took tens of milliseconds to plan and run on an empty queue.
  const [state] = rowsOf<{ ok: boolean | null; queued: boolean }>(
    await tx.execute(sql`
      select (select t.template_ids = ${templateIdArray(ids)} and t.rating_changes = e.rating_changes
          from rating_tallies t join ${evaluations} e on e.id = t.evaluation_id
          where t.evaluation_id = ${evaluationId}) as ok,
        exists (select 1 from rating_tally_pending where evaluation_id = ${evaluationId}) as queued`),
  );
  if (state?.ok === true && !state.queued) return { folded: 0, rebuilt: false };
  const folded = await fold(tx, evaluationId, ids);
  if (folded.ok) return { folded: folded.folded, rebuilt: false };
  await rebuild(tx, evaluationId, ids);
  return { folded: 0, rebuilt: true };
}

const FIELD = "\u001f";
const RECORD = "\u001e";

/**
 * The stored rows of `parts` as one text, a record per row holding only the fields its part uses (ordered by first
 * rating when `ordered`).
 */
function packed(evaluationId: string, parts: SQL, ordered: boolean): SQL {
  const fields = sql.raw(`case part
    when 'c' then concat_ws(chr(31), part, comparison_id, n, skipped)
    when 'r' then concat_ws(chr(31), part, rater_type, rater_id, n, skipped, valued)
    when 'u' then concat_ws(chr(31), part, idx, comparison_id, rater_type, value, n)
    else concat_ws(chr(31), part, idx, rater_type, rater_id, n, sum) end`);
  return sql`(select string_agg(${fields}, chr(30)${ordered ? sql` order by part, first_at, first_id` : sql``})
    from rating_tally_rows where evaluation_id = ${evaluationId} and part in ${parts})`;
}

function unpack(record: string, ord: number): TallyRow {
  const f = record.split(FIELD);
  const row: TallyRow = {
    part: f[0] as TallyRow["part"],
    idx: null,
    comparison_id: null,
    rater_type: null,
    rater_id: null,
    value: null,
    n: 0,
    skipped: null,
    valued: null,
    sum: null,
    ord,
  };
  switch (row.part) {
    case "c":
      row.comparison_id = f[1]!;
      row.n = Number(f[2]);
      row.skipped = Number(f[3]);
      break;
    case "r":
      row.rater_type = f[1]!;
      row.rater_id = f[2] || null;
      row.n = Number(f[3]);
      row.skipped = Number(f[4]);
      row.valued = Number(f[5]);
      break;
    case "u":
      row.idx = Number(f[1]);
      row.comparison_id = f[2]!;
      row.rater_type = f[3]!;
      row.value = Number(f[4]);
      row.n = Number(f[5]);
      break;
    default:
      row.idx = Number(f[1]);
      row.rater_type = f[2]!;
      row.rater_id = f[3] || null;
      row.n = Number(f[4]);
      row.sum = Number(f[5]);
  }
  return row;
}

/**
 * The stored rows as two texts in one row (comparisons and raters in the order of their first rating, then the
 * rest), split here: building and parsing thirteen thousand rows (100,000 ratings on 2,000 comparisons) one by one,
 * or as JSON, cost more than the rest of the read; only comparisons and raters are sorted. Floats are written in
 * Postgres' shortest exact form and read back by `Number`, so the values are exact.
 */
async function readRows(tx: DbOrTx, evaluationId: string): Promise<TallyRow[]> {
  const [result] = rowsOf<{ ordered: string | null; rest: string | null }>(
    await tx.execute(sql`select ${packed(evaluationId, sql`('c', 'r')`, true)} as ordered,
      ${packed(evaluationId, sql`('u', 'd')`, false)} as rest`),
  );
  const rows: TallyRow[] = [];
  for (const text of [result?.ordered, result?.rest]) {
    if (!text) continue;
    for (const record of text.split(RECORD)) rows.push(unpack(record, rows.length));
  }
  return rows;
}

/**
 * The tally of `loadStatsTally`, from the stored tally: what is queued is folded first (or the tally rebuilt),
 * under the evaluation's advisory lock, then the stored rows are read. Comparisons and raters keep the order of
 * their first rating, as in the full scan.
 */
export async function storedStatsTally(
  db: DbOrTx,
  row: EvaluationRow,
  knownTemplates?: StatsTemplate[],
): Promise<StatsTally> {
  const templates = knownTemplates ?? (await loadStatsTemplates(db, row));
  const ids = templates.map((t) => t.id);
  const [rows, comparisons] = await Promise.all([
    db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${lockKey(row.id)}))`);
      await bringUpToDate(tx, row.id, ids);
      return readRows(tx, row.id);
    }),
    loadStatsComparisons(db, row),
  ]);
  return tallyOfRows(row, templates, comparisons, rows);
}

export interface FoldPass {
  /** Evaluations whose queue was folded (or whose tally was rebuilt). */
  evaluations: number;
  /** Queued ratings folded. */
  folded: number;
  /** Stored tallies rebuilt from every rating. */
  rebuilt: number;
  /** Evaluations another fold held (a read or another process), left for it. */
  busy: number;
  /** Evaluations whose fold failed, with the error. */
  failed: string[];
}

async function foldOne(db: Db, id: string, pass: FoldPass): Promise<void> {
  await db.transaction(async (tx) => {
    const [lock] = rowsOf<{ ok: boolean }>(
      await tx.execute(sql`select pg_try_advisory_xact_lock(hashtext(${lockKey(id)})) as ok`),
    );
    if (!lock?.ok) {
      pass.busy++;
      return;
    }
    const [row] = await tx.select().from(evaluations).where(eq(evaluations.id, id));
    if (!row) {
      await tx.delete(ratingTallyPending).where(eq(ratingTallyPending.evaluationId, id));
      return;
    }
    const templates = await loadStatsTemplates(tx, row);
    const done = await bringUpToDate(
      tx,
      id,
      templates.map((t) => t.id),
    );
    pass.evaluations++;
    pass.folded += done.folded;
    if (done.rebuilt) pass.rebuilt++;
  });
}

/**
 * One pass of the background folder: every evaluation with queued ratings (oldest first, up to `limit`) is folded,
 * each in its own transaction; an evaluation another fold holds is skipped (`pg_try_advisory_xact_lock`), so
 * several processes share the queue. The queue of an evaluation that no longer exists is dropped.
 */
export async function foldPendingTallies(db: Db, opts: { limit?: number } = {}): Promise<FoldPass> {
  const due = rowsOf<{ evaluation_id: string }>(
    await db.execute(sql`
      select evaluation_id from rating_tally_pending group by evaluation_id order by min(queued_at)
      limit ${opts.limit ?? 50}`),
  );
  const pass: FoldPass = { evaluations: 0, folded: 0, rebuilt: 0, busy: 0, failed: [] };
  for (const { evaluation_id: id } of due) {
    // One evaluation's failure (a value its templates cannot read, say) leaves the others to be folded; its
    // ratings stay queued, and reads fold or rebuild it themselves.
    await foldOne(db, id, pass).catch((err: unknown) => {
      pass.failed.push(`${id}: ${err instanceof Error ? err.message : String(err)}`);
    });
  }
  return pass;
}
