/**
 * The ratings part of `pnpm bench`: ratings submitted per second over HTTP, and results and agreement for an
 * evaluation holding 100,000 ratings (the compute alone, the first read, and cached reads).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createRubricon, listen, loadEnv } from "@rubricon/api";
import {
  bootstrapAccount,
  computeAgreement,
  computeAgreementOfTally,
  computeResults,
  computeResultsOfTally,
  createEvaluation,
  foldPendingTallies,
  loadRatingsForStats,
  loadStatsTally,
  setTeamLimits,
  storedStatsTally,
  systemClock,
  USAGE_SHARDS,
} from "@rubricon/core";
import { evaluations } from "@rubricon/db";
import { eq, sql } from "drizzle-orm";
import postgres from "postgres";
import { atLeast, atMost, below, type Figure, info } from "./figures";
import { type LoadResult, runLoad } from "./load";
import type { BenchDatabase } from "./seed";
import {
  ensureWebBuild,
  freePort,
  serverCounters,
  serverEnv,
  startRubricon,
  stopServer,
  waitReady,
} from "./servers";

/** `BENCH_RATINGS=1000000` measures results at a million ratings. */
export const RATINGS = Number(process.env.BENCH_RATINGS ?? 100_000);
const RATERS_PER_UNIT = 50;
/** Concurrent raters of one evaluation (one keep-alive connection each). */
const RATERS = Number(process.env.BENCH_RATERS ?? 64);
const TARGET_RATINGS_PER_S = 1000;
const TARGET_RATING_P99_MS = 200;
/** Rubricon's pool size (packages/db), which the floor uses too. */
const POOL = 10;
const TARGET_CACHED_RESULTS_P50_MS = 10;
/** The first read at 100,000 ratings, and at a million (scaled in between). */
const TARGET_FIRST_READ_MS = RATINGS >= 1_000_000 ? 2000 : 200;
/** Agreement's compute from the counts: half a first read's budget at either size (it grows with the counts). */
const TARGET_AGREEMENT_MS = TARGET_FIRST_READ_MS / 2;
const TARGET_GROWTH_MB = 200;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The largest absolute difference between numbers at the same place; Infinity where the shapes differ. */
function largestDifference(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return Math.abs(a - b);
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object")
    return a === b ? 0 : Number.POSITIVE_INFINITY;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  let most = 0;
  for (const k of keys) {
    if (k === "computedAt") continue;
    most = Math.max(
      most,
      largestDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    );
  }
  return most;
}

async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/**
 * 100,000 ratings on 2,000 comparisons, each rated by the same 25 people and 25 autousers, written in SQL.
 * Scores lean by comparison and scatter by rater, as real ones do, so agreement is neither perfect nor nil.
 */
async function seedManyRatings(db: BenchDatabase["database"]["db"], evaluationId: string, teamId: string) {
  const units = RATINGS / RATERS_PER_UNIT;
  const half = RATERS_PER_UNIT / 2;
  await db.execute(sql`insert into comparisons (id, evaluation_id, name, position, stimulus)
    select 'cmp_bench_' || g, ${evaluationId}, null, g,
      jsonb_build_object('kind', 'single', 'url', 'https://example.com/' || g, 'fileId', null, 'stimulusType', 'URL')
    from generate_series(1, ${units}) g`);
  await db.execute(sql`insert into public_raters (id, evaluation_id, name, token_hash)
    select 'prt_bench_' || r, ${evaluationId}, 'Rater ' || r, md5('bench' || r) from generate_series(1, ${half}) r`);
  await db.execute(sql`insert into ratings (id, evaluation_id, comparison_id, team_id, rater_type, public_rater_id,
      autouser_id, dimension_ratings, template_versions, open_text_responses, factors)
    select 'rat_bench_' || g || '_' || r, ${evaluationId}, 'cmp_bench_' || g, ${teamId},
      case when r <= ${half} then 'public' else 'autouser' end,
      case when r <= ${half} then 'prt_bench_' || r end,
      case when r > ${half} then 'auto_bench_' || r end,
      jsonb_build_object('overall', least(7, greatest(1, 1 + (g % 7) + ((g * 7 + r * 13) % 3) - 1))),
      '{"overall": 1}'::jsonb, '{}'::jsonb, '[]'::jsonb
    from generate_series(1, ${units}) g, generate_series(1, ${RATERS_PER_UNIT}) r`);
  await db
    .update(evaluations)
    .set({ ratingsRevision: sql`${evaluations.ratingsRevision} + 1` })
    .where(eq(evaluations.id, evaluationId));
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/**
 * The floor beside the API: the same number of raters, each looping over the rows a rating writes (the rating, its
 * event and the team's monthly count on the connection's shard) in one transaction straight from postgres.js on a
 * pool of Rubricon's size, no HTTP, no checks. What Rubricon reaches of it is the share its HTTP, auth, validation and locks leave.
 */
async function ratingsFloor(
  url: string,
  evaluationId: string,
  comparisonId: string,
  teamId: string,
  durationS: number,
): Promise<LoadResult> {
  const client = postgres(url, { max: POOL, onnotice: () => {} });
  const latencies: number[] = [];
  const period = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1));
  let n = 0;
  const rate = async () => {
    const id = `rat_floor_${n++}`;
    await client.begin(async (tx) => {
      await tx`insert into ratings (id, evaluation_id, comparison_id, team_id, rater_type, dimension_ratings,
          template_versions, open_text_responses, factors)
        values (${id}, ${evaluationId}, ${comparisonId}, ${teamId}, 'public', '{"overall": 5}', '{"overall": 1}',
          '{}', '[]')`;
      await tx`insert into events (id, team_id, type, api_version, object_id, object, payload)
        values (${`evt_floor_${id}`}, ${teamId}, 'rating.created', 'v1', ${id}, '{}', '{}')`;
      // On the connection's shard of the counter, as Rubricon counts a rating far from the quota.
      await tx`insert into usage_counters (team_id, period_start, metric, shard, count)
        values (${teamId}, ${period}, 'human_ratings_mo', 1 + pg_backend_pid() % ${USAGE_SHARDS}, 1)
        on conflict (team_id, period_start, metric, shard) do update set count = usage_counters.count + 1`;
    });
  };
  try {
    const run = async (until: number, keep: boolean) => {
      await Promise.all(
        Array.from({ length: RATERS }, async () => {
          while (performance.now() < until) {
            const start = performance.now();
            await rate();
            if (keep) latencies.push(performance.now() - start);
          }
        }),
      );
    };
    await run(performance.now() + 2000, false);
    const start = performance.now();
    await run(start + durationS * 1000, true);
    const seconds = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      requestsPerSec: latencies.length / seconds,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      requests: latencies.length,
      failures: 0,
    };
  } finally {
    await client.end();
  }
}

/**
 * The burst, against the production server in its own process (`dist/apps/web/server.mjs`, as `pnpm start` runs
 * it, with its own pool of Rubricon's size): the load generator and the floor's raters run in this process, as
 * clients would on other machines. Answers the load with the server's CPU time per rating.
 */
async function burstOnServer(
  bench: BenchDatabase,
  evaluationId: string,
  body: string,
  headers: Record<string, string>,
  durationS: number,
): Promise<LoadResult> {
  await ensureWebBuild();
  const dataDir = mkdtempSync(join(tmpdir(), "rubricon-bench-"));
  const port = await freePort();
  const server = startRubricon(serverEnv(bench.url, dataDir), port);
  try {
    const api = `http://127.0.0.1:${port}/api/v1`;
    await waitReady("rubricon", server, `${api}/evaluations/${evaluationId}`, headers, 120_000);
    const counters = serverCounters(server, "server.mjs");
    return await runLoad(
      { url: `${api}/evaluations/${evaluationId}/ratings`, method: "POST", headers, body },
      { connections: RATERS, durationS, warmupS: 2 },
      counters?.cpuMs,
      counters?.writeCalls,
    );
  } finally {
    await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchRatings(bench: BenchDatabase, log: (m: string) => void): Promise<Figure[]> {
  const { db } = bench.database;
  const ctx = { db, clock: systemClock, baseUrl: "http://127.0.0.1" };
  const { userId, teamId, apiKey } = await bootstrapAccount(ctx, {
    email: "ratings-bench@example.com",
    password: "bench-password",
    teamName: "Ratings bench",
    plan: "enterprise",
    scopes: ["*"],
  });
  // The load would otherwise meet the team's own limits, which are not what this measures.
  await setTeamLimits(ctx, teamId, {
    requestsPerMinute: 10_000_000,
    humanRatingsPerMonth: 100_000_000,
    evaluations: 1_000_000,
  });
  const actor = { userId, boundTeamId: teamId, principal: "api_key" as const };
  const base = {
    status: "Running" as const,
    shareAccess: "TEAM_ONLY" as const,
    allowMultipleRatings: true,
    collectRaterName: false,
    collectRaterEmail: false,
    evaluationMethod: "manual" as const,
    dryRun: false,
  };
  const live = await createEvaluation(ctx, actor, {
    ...base,
    name: "Ratings under load",
    type: "SSE",
    designUrls: Array.from({ length: 50 }, (_, i) => ({
      url: `https://example.com/${i}`,
      stimulusType: "URL" as const,
    })),
  });
  const big = await createEvaluation(ctx, actor, { ...base, name: "100k ratings", type: "SSE" });
  if ("dryRun" in live || "dryRun" in big) throw new Error("unexpected dry run");

  const env = loadEnv({
    NODE_ENV: "test",
    DATABASE_URL: bench.url,
    DATA_DIR: "/tmp/rubricon-bench-data",
    EMBEDDED_WORKER: "false",
  });
  const app = await createRubricon({ env, database: bench.database });
  const { server, url } = await listen(app);
  const api = `${url}/api/v1`;
  const headers = { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" };
  const rows: Figure[] = [];
  try {
    const [first] = (await db.execute(
      sql`select id from comparisons where evaluation_id = ${live.id} limit 1`,
    )) as unknown as {
      id: string;
    }[];
    const durationS = Number(process.env.BENCH_DURATION_S ?? 10);
    log(`ratings: ${RATERS} raters submitting at once, then the floor`);
    const load = await burstOnServer(
      bench,
      live.id,
      JSON.stringify({ comparisonId: first!.id, dimensionRatings: { overall: 5 } }),
      headers,
      durationS,
    );
    const floor = await ratingsFloor(bench.url, live.id, first!.id, teamId, durationS);
    const [counted] = (await db.execute(
      sql`select (select count(*) from ratings where evaluation_id = ${live.id} and id not like 'rat_floor_%')::int as n,
        (select coalesce(sum(revision), 0) from evaluation_rating_revisions where evaluation_id = ${live.id})::int as r`,
    )) as unknown as { n: number; r: number }[];
    rows.push(
      atLeast(
        `POST /evaluations/{id}/ratings, one evaluation, ${RATERS} raters`,
        load.requestsPerSec,
        "ratings/s",
        TARGET_RATINGS_PER_S,
      ),
      info("POST /evaluations/{id}/ratings p50", load.p50Ms, "ms"),
      info("server CPU per rating", load.cpuMsPerRequest ?? Number.NaN, "ms"),
      // Each batch of statements sent to Postgres is a write or two, the answer one, the request log's a share of one.
      info("server write system calls per rating", load.writeCallsPerRequest ?? Number.NaN, ""),
      atMost("POST /evaluations/{id}/ratings p99", load.p99Ms, "ms", TARGET_RATING_P99_MS),
      atMost("POST /evaluations/{id}/ratings failed", load.failures, "", 0),
      // Every answered rating is a row and counted once in the revision that keeps cached results exact.
      atMost("ratings stored minus ratings counted", Math.abs(counted!.n - counted!.r), "", 0),
      info(`floor: the rating's writes in SQL, ${RATERS} raters`, floor.requestsPerSec, "ratings/s"),
      info("floor p50", floor.p50Ms, "ms"),
      info("floor p99", floor.p99Ms, "ms"),
      info("API / floor", floor.requestsPerSec > 0 ? load.requestsPerSec / floor.requestsPerSec : 0, ""),
    );

    log(`ratings: seeding ${RATINGS} ratings`);
    await seedManyRatings(db, big.id, teamId);
    const [row] = await db.select().from(evaluations).where(eq(evaluations.id, big.id));
    // What the server's background folder does after the burst: the seeded ratings are queued by the trigger and
    // folded (here: the first tally of the evaluation, built from every rating) before anyone reads.
    const queuedOf = async () =>
      (
        (await db.execute(
          sql`select count(*)::int as n from rating_tally_pending where evaluation_id = ${big.id}`,
        )) as unknown as { n: number }[]
      )[0]!.n;
    const queuedAfterSeed = await queuedOf();
    const settle = await timed(async () => {
      while ((await queuedOf()) > 0) await foldPendingTallies(db);
    });
    rows.push(
      info(`ratings queued for the stored tally after seeding`, queuedAfterSeed, ""),
      info(`background fold of the seeded ${RATINGS} ratings (settle)`, settle.ms, "ms"),
    );
    // A server answers other reads before this one: the first results read of the process (the burst's evaluation)
    // warms the code paths, reported apart; then the first read of the big evaluation, whose ratings nothing in
    // this process has touched.
    const processFirst = await timed(() =>
      fetch(`${api}/evaluations/${live.id}/results`, { headers }).then((r) => r.json()),
    );
    rows.push(
      info("GET /results, first read of the process (the burst's evaluation)", processFirst.ms, "ms"),
    );
    // The first read through the API, before anything else has touched these ratings in this process.
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 10);
    const firstRead = await timed(() =>
      fetch(`${api}/evaluations/${big.id}/results`, { headers }).then((r) => r.json()),
    );
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    const agreementRead = await timed(() =>
      fetch(`${api}/evaluations/${big.id}/agreement`, { headers }).then((r) => r.json()),
    );
    const cached: number[] = [];
    for (let i = 0; i < 100; i++) {
      cached.push(
        (
          await timed(() =>
            fetch(`${api}/evaluations/${big.id}/results`, { headers }).then((r) => r.arrayBuffer()),
          )
        ).ms,
      );
    }
    const cachedP50 = median(cached);
    rows.push(
      atMost(`GET /results, first read, ${RATINGS} ratings`, firstRead.ms, "ms", TARGET_FIRST_READ_MS),
      atMost(
        `process growth during the first read, ${RATINGS} ratings`,
        (rssPeak - rssBefore) / 1024 / 1024,
        "MB",
        TARGET_GROWTH_MB,
      ),
      atMost(`GET /agreement, first read, ${RATINGS} ratings`, agreementRead.ms, "ms", TARGET_FIRST_READ_MS),
      atMost("GET /results, cached read p50 of 100", cachedP50, "ms", TARGET_CACHED_RESULTS_P50_MS),
    );

    // Side by side: the stored tally (what the API reads now), the counts Postgres aggregates from every rating
    // (before, and what a rebuild runs) and every rating row (before that).
    const stored = await timed(() => storedStatsTally(db, row!));
    const tallied = await timed(() => loadStatsTally(db, row!));
    const loaded = RATINGS <= 200_000 ? await timed(() => loadRatingsForStats(db, row!)) : null;
    rows.push(info(`read the stored tally, ${RATINGS} ratings (now)`, stored.ms, "ms"));
    rows.push(info(`aggregate ${RATINGS} ratings in Postgres (full scan, before)`, tallied.ms, "ms"));
    if (loaded) rows.push(info(`load ${RATINGS} rating rows from Postgres (before)`, loaded.ms, "ms"));
    const agreementRuns: number[] = [];
    const resultsRuns: number[] = [];
    const rowAgreementRuns: number[] = [];
    const rowResultsRuns: number[] = [];
    for (let i = 0; i < 5; i++) {
      agreementRuns.push((await timed(() => computeAgreementOfTally(tallied.value, new Date()))).ms);
      resultsRuns.push((await timed(() => computeResultsOfTally(tallied.value, new Date()))).ms);
      if (loaded) {
        rowAgreementRuns.push((await timed(() => computeAgreement(loaded.value, new Date()))).ms);
        rowResultsRuns.push((await timed(() => computeResults(loaded.value, new Date()))).ms);
      }
    }
    const agreementMs = median(agreementRuns);
    // Exactness of the stored tally: every number of results and agreement against the full scan's.
    const at = new Date();
    const storedDiff = Math.max(
      largestDifference(computeResultsOfTally(stored.value, at), computeResultsOfTally(tallied.value, at)),
      largestDifference(
        computeAgreementOfTally(stored.value, at),
        computeAgreementOfTally(tallied.value, at),
      ),
    );
    rows.push(atMost("largest difference, stored tally against the full scan", storedDiff, "", 1e-9));
    rows.push(
      below(
        `agreement from the counts, ${RATINGS} ratings (compute)`,
        agreementMs,
        "ms",
        TARGET_AGREEMENT_MS,
      ),
      info(`results from the counts, ${RATINGS} ratings (compute)`, median(resultsRuns), "ms"),
    );
    if (loaded) {
      rows.push(
        info(`agreement from the rows, ${RATINGS} ratings (compute, before)`, median(rowAgreementRuns), "ms"),
        info(`results from the rows, ${RATINGS} ratings (compute, before)`, median(rowResultsRuns), "ms"),
      );
      // Exactness on the bench's data: every number of results and agreement, both ways.
      const diff = Math.max(
        largestDifference(computeResultsOfTally(tallied.value, at), computeResults(loaded.value, at)),
        largestDifference(computeAgreementOfTally(tallied.value, at), computeAgreement(loaded.value, at)),
      );
      rows.push(atMost("largest difference, counts against rows (results and agreement)", diff, "", 1e-9));
    }
  } finally {
    await new Promise<void>((done) => server.close(() => done()));
    await app.close?.();
  }
  return rows;
}
