import { evaluationStats, evaluations } from "@rubricon/db";
import type { TestDatabase } from "@rubricon/db/testing";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CoreContext,
  computeAgreement,
  computeAgreementOfTally,
  computeResults,
  computeResultsOfTally,
  getAgreement,
  getResults,
  loadRatingsForStats,
  loadStatsTally,
} from "../src/index";
import { expectClose, runningEvaluation, type StatsActor, statsTeam } from "./stats-helpers";

let database: TestDatabase;
let ctx: CoreContext;
let teamId: string;
let actor: StatsActor;
const AT = new Date("2026-11-25T12:00:00.000Z");

beforeAll(async () => {
  ({ database, ctx, teamId, actor } = await statsTeam("Tally"));
}, 180_000);
afterAll(() => database?.dispose());

function evaluation(type: "SSE" | "SxS", templates: string[]): Promise<string> {
  return runningEvaluation(ctx, actor, `Tally ${type}`, type, templates);
}

async function compare(evaluationId: string) {
  const [row] = await database.db.select().from(evaluations).where(eq(evaluations.id, evaluationId));
  const [data, tally] = await Promise.all([
    loadRatingsForStats(database.db, row!),
    loadStatsTally(database.db, row!),
  ]);
  const old = computeResults(data, AT);
  const now = computeResultsOfTally(tally, AT);
  expectClose(now, old);
  for (const metric of ["nominal", "ordinal", "interval", "ratio"] as const) {
    if (metric === "ratio" && row!.type === "SxS") continue;
    expectClose(computeAgreementOfTally(tally, AT, metric), computeAgreement(data, AT, metric));
  }
  expectClose(computeAgreementOfTally(tally, AT), computeAgreement(data, AT));
  return old;
}

describe("results and agreement from Postgres' counts", () => {
  it("equal those computed from every rating, on the bench's data (ratings written at one instant)", async () => {
    const id = await evaluation("SSE", ["overall"]);
    const [units, raters] = [120, 20];
    await database.db.execute(sql`insert into comparisons (id, evaluation_id, name, position, stimulus)
      select 'cmp_t_' || g, ${id}, null, g,
        jsonb_build_object('kind', 'single', 'url', 'https://example.com/' || g, 'fileId', null, 'stimulusType', 'URL')
      from generate_series(1, ${units}) g`);
    await database.db.execute(sql`insert into public_raters (id, evaluation_id, name, token_hash)
      select 'prt_t_' || r, ${id}, 'Rater ' || r, md5('tally' || r) from generate_series(1, ${raters / 2}) r`);
    await database.db.execute(sql`insert into ratings (id, evaluation_id, comparison_id, team_id, rater_type,
        public_rater_id, autouser_id, dimension_ratings, template_versions, open_text_responses, factors)
      select 'rat_t_' || g || '_' || r, ${id}, 'cmp_t_' || g, ${teamId},
        case when r <= ${raters / 2} then 'public' else 'autouser' end,
        case when r <= ${raters / 2} then 'prt_t_' || r end,
        case when r > ${raters / 2} then 'auto_t_' || r end,
        jsonb_build_object('overall', least(7, greatest(1, 1 + (g % 7) + ((g * 7 + r * 13) % 3) - 1))),
        '{"overall": 1}'::jsonb, '{}'::jsonb, '[]'::jsonb
      from generate_series(1, ${units}) g, generate_series(1, ${raters}) r`);
    const old = await compare(id);
    expect(old.ratingCount).toBe(units * raters);
    expect(old.agreement.alpha).not.toBeNull();
    expect(old.agreement.ci95).not.toBeNull();
  }, 60_000);

  it("equal them with two templates, skips, missing values, an excluded rater, raters gone and repeat ratings", async () => {
    const id = await evaluation("SxS", ["overall", "usability"]);
    await database.db.execute(sql`insert into comparisons (id, evaluation_id, name, position, stimulus)
      select 'cmp_s_' || g, ${id}, 'Pair ' || g, 41 - g,
        jsonb_build_object('kind', 'single', 'url', 'https://example.com/' || g, 'fileId', null, 'stimulusType', 'URL')
      from generate_series(1, 40) g`);
    await database.db.execute(sql`insert into public_raters (id, evaluation_id, name, token_hash, excluded_at)
      select 'prt_s_' || r, ${id}, 'Rater ' || r, md5('tally-s' || r), case when r = 3 then now() end
      from generate_series(1, 8) r`);
    // Times in a scrambled order, so first ratings are not in id order; every tenth pair of ratings shares an instant.
    await database.db.execute(sql`insert into ratings (id, evaluation_id, comparison_id, team_id, rater_type,
        public_rater_id, autouser_id, user_id, dimension_ratings, template_versions, open_text_responses, factors,
        skip_reason, created_at)
      select 'rat_s_' || g || '_' || r || '_' || k, ${id}, 'cmp_s_' || g, ${teamId},
        case when r <= 8 then 'public' when r <= 14 then 'autouser' else 'user' end,
        case when r <= 8 then 'prt_s_' || r end,
        case when r > 8 and r <= 14 then 'auto_s_' || r end,
        null,
        case
          when (g + r) % 11 = 0 then jsonb_build_object('usability', ((g * 5 + r * 3) % 7) - 3)
          when (g + r) % 13 = 0 then jsonb_build_object('overall', ((g + r) % 7) - 3)
          else jsonb_build_object('overall', ((g * 3 + r * 7 + k) % 7) - 3, 'usability', ((g + r * r) % 5) - 2)
        end,
        '{}'::jsonb, '{}'::jsonb, '[]'::jsonb,
        case when (g * r) % 17 = 0 then 'not_loading' end,
        timestamptz '2026-11-20 00:00:00+00' + ((((g * 7919 + r * 104729 + k * 13) % 5000) / 10) * interval '1 second')
      from generate_series(1, 40) g, generate_series(1, 18) r, generate_series(1, 2) k
      where k = 1 or (g + r) % 5 = 0`);
    const old = await compare(id);
    expect(old.perRater.some((r) => r.raterId === null)).toBe(true);
    expect(old.excludedCount).toBeGreaterThan(0);
    expect(old.dimensions).toHaveLength(2);
  }, 60_000);

  it("equal them for an evaluation without ratings", async () => {
    const id = await evaluation("SSE", ["overall"]);
    const old = await compare(id);
    expect(old.ratingCount).toBe(0);
  }, 60_000);

  it("are stored for other processes after answering, each under the fingerprint it was computed for", async () => {
    const id = await evaluation("SSE", ["overall"]);
    await database.db.execute(sql`insert into comparisons (id, evaluation_id, name, position, stimulus)
      values (${`cmp_store_${id}`}, ${id}, null, 1, '{"kind": "single", "url": "https://example.com/s", "fileId": null, "stimulusType": "URL"}')`);
    await database.db.execute(sql`insert into ratings (id, evaluation_id, comparison_id, team_id, rater_type,
        autouser_id, dimension_ratings, template_versions, open_text_responses, factors)
      select 'rat_store_' || r, ${id}, ${`cmp_store_${id}`}, ${teamId}, 'autouser', 'auto_store_' || r,
        jsonb_build_object('overall', r), '{"overall": 1}', '{}', '[]'
      from generate_series(1, 5) r`);
    const results = await getResults(ctx, actor, id);
    const agreement = await getAgreement(ctx, actor, id);
    expect(results.ratingCount).toBe(5);
    const stored = async () =>
      database.db.select().from(evaluationStats).where(eq(evaluationStats.evaluationId, id));
    for (let i = 0; i < 100 && (await stored()).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    const rows = await stored();
    expect(rows.map((r) => r.kind).sort()).toEqual(["agreement:ordinal", "results"]);
    expect(new Set(rows.map((r) => r.fingerprint)).size).toBe(1);
    expect(rows.find((r) => r.kind === "results")!.payload).toEqual(results);
    expect(rows.find((r) => r.kind === "agreement:ordinal")!.payload).toEqual(agreement);
  }, 60_000);
});
