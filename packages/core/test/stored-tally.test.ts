import { createDatabase, evaluations } from "@rubricon/db";
import type { TestDatabase } from "@rubricon/db/testing";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CoreContext,
  computeAgreementOfTally,
  computeResultsOfTally,
  foldPendingTallies,
  getResults,
  loadStatsTally,
  oldestQueuedTallyAge,
  ratingTallyQueue,
  storedStatsTally,
} from "../src/index";
import { expectClose, runningEvaluation, type StatsActor, statsTeam } from "./stats-helpers";

let database: TestDatabase;
let ctx: CoreContext;
let teamId: string;
let actor: StatsActor;
const AT = new Date("2026-11-25T12:00:00.000Z");

beforeAll(async () => {
  ({ database, ctx, teamId, actor } = await statsTeam("Stored tally"));
}, 180_000);
afterAll(() => database?.dispose());

function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows?: T[] }).rows ?? []);
}

function evaluation(type: "SSE" | "SxS", templates: string[]): Promise<string> {
  return runningEvaluation(ctx, actor, `Stored ${type}`, type, templates);
}

async function rowOf(id: string) {
  const [row] = await database.db.select().from(evaluations).where(eq(evaluations.id, id));
  return row!;
}

async function queued(id: string): Promise<number> {
  const [r] = rowsOf<{ n: number }>(
    await database.db.execute(
      sql`select count(*)::int as n from rating_tally_pending where evaluation_id = ${id}`,
    ),
  );
  return r!.n;
}

async function builtAt(id: string): Promise<string | null> {
  const [r] = rowsOf<{ b: string }>(
    await database.db.execute(
      sql`select built_at::text as b from rating_tallies where evaluation_id = ${id}`,
    ),
  );
  return r?.b ?? null;
}

/** The stored tally (queue folded first) against the full scan: results and every agreement metric. */
async function compare(id: string) {
  const row = await rowOf(id);
  const stored = await storedStatsTally(database.db, row);
  expect(await queued(id)).toBe(0);
  const scanned = await loadStatsTally(database.db, row);
  expect(stored.ratedComparisons).toEqual(scanned.ratedComparisons);
  expect(stored.raters.map((r) => [r.raterType, r.raterId])).toEqual(
    scanned.raters.map((r) => [r.raterType, r.raterId]),
  );
  const results = computeResultsOfTally(stored, AT);
  expectClose(results, computeResultsOfTally(scanned, AT));
  for (const metric of ["nominal", "ordinal", "interval", "ratio"] as const) {
    if (metric === "ratio" && row.type === "SxS") continue;
    expectClose(computeAgreementOfTally(stored, AT, metric), computeAgreementOfTally(scanned, AT, metric));
  }
  return results;
}

async function comparisonsOf(id: string, prefix: string, count: number) {
  await database.db.execute(sql`insert into comparisons (id, evaluation_id, name, position, stimulus)
    select ${prefix} || g, ${id}, 'Pair ' || g, ${count} + 1 - g,
      jsonb_build_object('kind', 'single', 'url', 'https://example.com/' || g, 'fileId', null, 'stimulusType', 'URL')
    from generate_series(1, ${count}) g`);
}

/**
 * SxS ratings of raters `from`..`to` (public raters 1–8, rater 3 excluded; autousers 9–14; users 15–18, user 16 a
 * real account), with skips, missing values, repeat ratings and shuffled instants that tie now and then.
 */
async function rate(id: string, p: string, from: number, to: number, batch: string) {
  await database.db.execute(sql`insert into ratings (id, evaluation_id, comparison_id, team_id, rater_type,
      public_rater_id, autouser_id, user_id, dimension_ratings, template_versions, open_text_responses, factors,
      skip_reason, created_at)
    select ${`rat_${p}_${batch}_`} || g || '_' || r || '_' || k, ${id}, ${`cmp_${p}_`} || g, ${teamId},
      case when r <= 8 then 'public' when r <= 14 then 'autouser' else 'user' end,
      case when r <= 8 then ${`prt_${p}_`} || r end,
      case when r > 8 and r <= 14 then 'auto_' || r end,
      case when r = 16 then ${`usr_${p}_16`} end,
      case
        when (g + r) % 11 = 0 then jsonb_build_object('usability', ((g * 5 + r * 3) % 7) - 3)
        when (g + r) % 13 = 0 then jsonb_build_object('overall', ((g + r) % 7) - 3)
        else jsonb_build_object('overall', ((g * 3 + r * 7 + k) % 7) - 3, 'usability', ((g + r * r) % 5) - 2)
      end,
      '{}'::jsonb, '{}'::jsonb, '[]'::jsonb,
      case when (g * r) % 17 = 0 then 'not_loading' end,
      timestamptz '2026-11-20 00:00:00+00' + ((((g * 7919 + r * 104729 + k * 13 + ${batch.length}::int) % 5000) / 10) * interval '1 second')
    from generate_series(1, 30) g, generate_series(${from}::int, ${to}::int) r, generate_series(1, 2) k
    where k = 1 or (g + r) % 5 = 0`);
}

async function sxsEvaluation(p: string): Promise<string> {
  const id = await evaluation("SxS", ["overall", "usability"]);
  await comparisonsOf(id, `cmp_${p}_`, 30);
  await database.db.execute(sql`insert into public_raters (id, evaluation_id, name, token_hash, excluded_at)
    select ${`prt_${p}_`} || r, ${id}, 'Rater ' || r, md5(${p} || r), case when r = 3 then now() end
    from generate_series(1, 8) r`);
  await database.db.execute(
    sql`insert into users (id, email) values (${`usr_${p}_16`}, ${`rater-${p}@example.com`})`,
  );
  return id;
}

describe("the stored tally", () => {
  it("queues every inserted rating by trigger, builds once, then folds new ratings into the same figures", async () => {
    const id = await sxsEvaluation("a");
    await rate(id, "a", 1, 10, "one");
    const inserted = rowsOf<{ n: number }>(
      await database.db.execute(sql`select count(*)::int as n from ratings where evaluation_id = ${id}`),
    )[0]!.n;
    expect(await queued(id)).toBe(inserted);
    expect(await ratingTallyQueue(database.db)).toBeGreaterThanOrEqual(inserted);
    expect(await oldestQueuedTallyAge(database.db)).toBeGreaterThanOrEqual(0);
    await compare(id);
    const built = await builtAt(id);
    expect(built).not.toBeNull();

    await rate(id, "a", 11, 18, "two");
    expect(await queued(id)).toBeGreaterThan(0);
    const results = await compare(id);
    // Folded, not rebuilt.
    expect(await builtAt(id)).toBe(built);
    expect(results.perRater.some((r) => r.raterId === "usr_a_16")).toBe(true);
    expect(results.excludedCount).toBeGreaterThan(0);
  }, 60_000);

  it("is rebuilt after a delete, an exclusion, a deleted user and a changed value, each bumping rating_changes", async () => {
    const id = await sxsEvaluation("b");
    await rate(id, "b", 1, 18, "one");
    await compare(id);
    const changes = async () => (await rowOf(id)).ratingChanges;
    const steps: (() => Promise<unknown>)[] = [
      () =>
        database.db.execute(
          sql`delete from ratings where evaluation_id = ${id} and comparison_id = 'cmp_b_7'`,
        ),
      () => database.db.execute(sql`update public_raters set excluded_at = now() where id = 'prt_b_5'`),
      () => database.db.execute(sql`update public_raters set excluded_at = null where id = 'prt_b_3'`),
      () => database.db.execute(sql`delete from users where id = 'usr_b_16'`),
      () =>
        database.db.execute(sql`update ratings set dimension_ratings = '{"overall": 3}'
          where evaluation_id = ${id} and comparison_id = 'cmp_b_9'`),
    ];
    for (const step of steps) {
      const before = await changes();
      const built = await builtAt(id);
      await step();
      expect(await changes()).toBeGreaterThan(before);
      // A rating queued beside the change is counted once by the rebuild.
      await rate(id, "b", 17, 17, `s${before}`);
      await compare(id);
      expect(await builtAt(id)).not.toBe(built);
    }
    const results = await compare(id);
    expect(results.perRater.some((r) => r.raterId === "usr_b_16")).toBe(false);
    // A change that touches nothing the tally reads is no change.
    const before = await changes();
    await database.db.execute(sql`update ratings set team_id = team_id where evaluation_id = ${id}`);
    expect(await changes()).toBe(before);
  }, 60_000);

  it("counts every rating once under concurrent inserts, folds and reads", async () => {
    const id = await sxsEvaluation("c");
    await rate(id, "c", 1, 2, "seed");
    await compare(id);
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 12; i++) {
      work.push(rate(id, "c", 3 + (i % 16), 3 + (i % 16), `w${i}`));
      work.push(
        i % 2 === 0 ? foldPendingTallies(database.db) : storedStatsTally(database.db, await rowOf(id)),
      );
    }
    await Promise.all(work);
    const results = await compare(id);
    const [total] = rowsOf<{ n: number }>(
      await database.db.execute(sql`select count(*)::int as n from ratings r where evaluation_id = ${id}
        and not exists (select 1 from public_raters p where p.id = r.public_rater_id and p.excluded_at is not null)`),
    );
    expect(results.ratingCount).toBe(total!.n);
  }, 60_000);

  it("leaves a rating whose transaction is open to the next fold, and counts it once after it commits", async () => {
    const id = await sxsEvaluation("d");
    await rate(id, "d", 1, 6, "one");
    await compare(id);
    // A second connection holds inserted ratings uncommitted while the tally is folded and rebuilt. PGlite has
    // one connection, so there the same ratings are inserted between the folds instead.
    const other = database.url ? createDatabase({ url: database.url, maxConnections: 1 }) : null;
    try {
      const insert = sql`insert into ratings (id, evaluation_id, comparison_id, team_id, rater_type, autouser_id,
          dimension_ratings, template_versions, open_text_responses, factors)
        select 'rat_d_open_' || g, ${id}, 'cmp_d_' || g, ${teamId}, 'autouser', 'auto_open',
          jsonb_build_object('overall', g % 7 - 3, 'usability', g % 5 - 2), '{}', '{}', '[]'
        from generate_series(1, 30) g`;
      if (other) {
        let inserted!: () => void;
        let commit!: () => void;
        const insertedNow = new Promise<void>((r) => (inserted = r));
        const committing = new Promise<void>((r) => (commit = r));
        const open = other.db.transaction(async (tx) => {
          await tx.execute(insert);
          inserted();
          await committing;
        });
        await insertedNow;
        const folded = computeResultsOfTally(await storedStatsTally(database.db, await rowOf(id)), AT);
        // A delete meanwhile: the rebuild does not see the open ratings either.
        await database.db.execute(sql`delete from ratings where id = 'rat_d_one_1_1_1'`);
        const rebuilt = computeResultsOfTally(await storedStatsTally(database.db, await rowOf(id)), AT);
        expect(rebuilt.ratingCount).toBe(folded.ratingCount - 1);
        expect(await queued(id)).toBe(0);
        commit();
        await open;
        expect(await queued(id)).toBe(30);
      } else {
        await storedStatsTally(database.db, await rowOf(id));
        await database.db.execute(sql`delete from ratings where id = 'rat_d_one_1_1_1'`);
        await storedStatsTally(database.db, await rowOf(id));
        await database.db.execute(insert);
        expect(await queued(id)).toBe(30);
      }
      const results = await compare(id);
      expect(results.perRater.find((r) => r.raterId === "auto_open")?.ratingCount).toBe(30);
    } finally {
      await other?.close();
    }
  }, 60_000);

  it("is folded by the background pass, and a read through the API answers the same figures", async () => {
    const id = await sxsEvaluation("e");
    await rate(id, "e", 1, 18, "one");
    expect(await queued(id)).toBeGreaterThan(0);
    let pass = await foldPendingTallies(database.db);
    expect(pass.rebuilt).toBeGreaterThanOrEqual(1);
    expect(await queued(id)).toBe(0);
    await rate(id, "e", 1, 4, "two");
    pass = await foldPendingTallies(database.db);
    expect(pass.folded).toBeGreaterThan(0);
    expect(await queued(id)).toBe(0);
    const results = await getResults(ctx, actor, id);
    expectClose({ ...results, computedAt: AT.toISOString() }, await compare(id));
  }, 60_000);

  it("folds the other evaluations when one evaluation's fold fails, and keeps the failed one's queue", async () => {
    const bad = await sxsEvaluation("g");
    const good = await sxsEvaluation("h");
    await database.db.execute(sql`insert into ratings (id, evaluation_id, comparison_id, team_id, rater_type,
        autouser_id, dimension_ratings, template_versions, open_text_responses, factors)
      values ('rat_g_bad', ${bad}, 'cmp_g_1', ${teamId}, 'autouser', 'auto_bad', '{"overall": "high"}', '{}', '{}', '[]')`);
    await rate(good, "h", 1, 4, "one");
    const pass = await foldPendingTallies(database.db);
    expect(pass.failed.map((f) => f.split(":")[0])).toContain(bad);
    expect(await queued(bad)).toBe(1);
    expect(await queued(good)).toBe(0);
    await compare(good);
    await database.db.execute(sql`delete from ratings where id = 'rat_g_bad'`);
    await foldPendingTallies(database.db);
    expect(await queued(bad)).toBe(0);
  }, 60_000);

  it("drops the queue of an evaluation that no longer exists", async () => {
    const id = await sxsEvaluation("f");
    await rate(id, "f", 1, 2, "one");
    await database.db.execute(sql`delete from evaluations where id = ${id}`);
    expect(await queued(id)).toBeGreaterThan(0);
    await foldPendingTallies(database.db);
    expect(await queued(id)).toBe(0);
  }, 60_000);
});
