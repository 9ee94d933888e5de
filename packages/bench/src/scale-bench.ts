/**
 * `pnpm bench scale`: does a list page cost the same in a team of a million evaluations as in one of ten thousand?
 * Two teams are seeded straight into a scratch Postgres database (generate_series, not through the API), and
 * first pages and later pages (`starting_after` the middle of the list) are fetched one after another through
 * Rubricon's production server, timing each request from the client.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { bootstrapAccount, setTeamLimits, systemClock } from "@rubricon/core";
import postgres from "postgres";
import { atMost, type Figure, info, writeFigures } from "./figures";
import { createBenchDatabase, DEFAULT_ADMIN_URL } from "./seed";
import {
  ensureWebBuild,
  freePort,
  serverCpu,
  serverEnv,
  startRubricon,
  stopServer,
  waitReady,
} from "./servers";
import { renderTable } from "./table";

/** p50 of the large team's pages at most this many times the small team's. */
const TARGET_RATIO = 1.2;
const SMALL = Number(process.env.BENCH_SCALE_SMALL ?? 10_000);
const LARGE = Number(process.env.BENCH_SCALE_LARGE ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_SCALE_REQUESTS ?? 1000);
/** A series stops early after this long, so a slow list cannot hold the bench for an hour; the count is shown. */
const MAX_SERIES_S = Number(process.env.BENCH_SCALE_MAX_S ?? 60);
/** Warm-up before each series: this many requests, or this long, whichever ends first. */
const WARMUP_REQUESTS = 200;
const WARMUP_MAX_S = 5;
const IDLE_S = 3;
const PAGE = 20;

interface ScaleTeam {
  label: string;
  size: number;
  /** One letter in every seeded id, so the two teams' ids never meet. */
  tag: string;
  teamId: string;
  apiKey: string;
}

export interface Series {
  requests: number;
  /** True when the series stopped at MAX_SERIES_S before REQUESTS. */
  capped: boolean;
  p50Ms: number;
  p95Ms: number;
  /** Rubricon's process CPU time over the series divided by its requests. */
  cpuMsPerRequest?: number;
}

export interface ScaleRow {
  page: string;
  small: Series;
  large: Series;
  ratio: number;
  pass: boolean;
}

/** The id of the team's `position`-th evaluation in list order (1 is the newest), as the seed writes it. */
function evaluationId(tag: string, position: number): string {
  return `eval_${tag}${String(position).padStart(23, "0")}`;
}

/**
 * `size` evaluations for the team, newest first one second apart, every tenth with one to three comparisons, all
 * naming the system template `overall` (the list reads its name): the rows and columns a list page reads.
 */
async function seedTeam(sql: postgres.Sql, team: ScaleTeam, userId: string, newest: Date): Promise<void> {
  await sql`insert into evaluations (id, team_id, created_by, name, type, status, share_access, share_token,
      allow_multiple_ratings, evaluation_method, selected_dimension_ids, selected_autousers, created_at, updated_at)
    select 'eval_' || ${team.tag} || lpad(g::text, 23, '0'), ${team.teamId}, ${userId}, 'Scale evaluation ' || g,
      'SSE', case when g % 7 = 0 then 'Running' else 'Draft' end, 'TEAM_ONLY', ${team.tag} || '-share-' || g,
      false, 'manual', array['overall'], '[]'::jsonb, t, t
    from generate_series(1, ${team.size}::int) g, lateral (select ${newest}::timestamptz - g * interval '1 second' as t) x`;
  await sql`insert into comparisons (id, evaluation_id, name, position, stimulus, created_at, updated_at)
    select 'cmp_' || ${team.tag} || lpad(g::text, 22, '0') || p, 'eval_' || ${team.tag} || lpad(g::text, 23, '0'),
      null, p, jsonb_build_object('kind', 'single', 'url', 'https://example.com/' || g || '/' || p,
        'fileId', null, 'stimulusType', 'URL'), t, t
    from generate_series(10, ${team.size}::int, 10) g,
      lateral (select ${newest}::timestamptz - g * interval '1 second' as t) x,
      lateral generate_series(0, (g / 10) % 3) p`;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Requests one after another on one keep-alive connection, each timed from sending to its body read, alternating
 * between the two teams so that whatever else the machine does (or the JIT warming up) weighs on both series alike.
 */
async function pairedSeries(
  urls: [string, string],
  apiKeys: [string, string],
  cpuMs: (() => number) | undefined,
): Promise<[Series, Series]> {
  const get = async (i: 0 | 1) => {
    const res = await fetch(urls[i], { headers: { authorization: `Bearer ${apiKeys[i]}` } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${urls[i]} answered ${res.status}: ${body.slice(0, 300)}`);
  };
  const warm = performance.now() + WARMUP_MAX_S * 1000;
  for (let i = 0; i < WARMUP_REQUESTS && performance.now() < warm; i++) await get((i % 2) as 0 | 1);
  const times: [number[], number[]] = [[], []];
  const cpuBefore = cpuMs?.();
  const deadline = performance.now() + 2 * MAX_SERIES_S * 1000;
  for (let i = 0; times[1].length < REQUESTS && performance.now() < deadline; i++) {
    const which = (i % 2) as 0 | 1;
    const start = performance.now();
    await get(which);
    times[which].push(performance.now() - start);
  }
  const cpuAfter = cpuMs?.();
  const total = times[0].length + times[1].length;
  return times.map((t) => {
    t.sort((a, b) => a - b);
    return {
      requests: t.length,
      capped: t.length < REQUESTS,
      p50Ms: percentile(t, 50),
      p95Ms: percentile(t, 95),
      ...(cpuBefore !== undefined && cpuAfter !== undefined
        ? { cpuMsPerRequest: (cpuAfter - cpuBefore) / total }
        : {}),
    };
  }) as [Series, Series];
}

/** A page must be the right one before it is timed: the expected first item, a full page, more after it. */
async function assertPage(url: string, apiKey: string, firstId: string): Promise<void> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
  const body = (await res.json()) as { data?: { id: string }[]; has_more?: boolean };
  if (res.status !== 200 || body.data?.length !== PAGE || body.data[0]?.id !== firstId || !body.has_more) {
    throw new Error(
      `${url} did not answer the page expected (first ${firstId}): ${JSON.stringify(body).slice(0, 300)}`,
    );
  }
}

export interface ScaleResult {
  rows: ScaleRow[];
  /** Rubricon's CPU time per second while it answered nothing (its embedded worker's polling). */
  idleCpuMsPerS?: number;
}

export async function benchScale(log: (message: string) => void): Promise<ScaleResult> {
  await ensureWebBuild();
  const bench = await createBenchDatabase(process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL);
  const dataDir = mkdtempSync(join(tmpdir(), "rubricon-bench-scale-"));
  let web: ChildProcess | undefined;
  try {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const ctx = { db: bench.database.db, clock: systemClock, baseUrl };
    const teams: ScaleTeam[] = [];
    for (const [label, size, tag] of [
      [SMALL >= 1_000_000 ? `${SMALL / 1_000_000}M` : `${SMALL / 1000}k`, SMALL, "a"],
      [LARGE >= 1_000_000 ? `${LARGE / 1_000_000}M` : `${LARGE / 1000}k`, LARGE, "b"],
    ] as const) {
      const account = await bootstrapAccount(ctx, {
        email: `scale-${tag}@example.com`,
        password: "bench-password",
        teamName: `Scale ${label}`,
        plan: "enterprise",
        scopes: ["*"],
      });
      // The requests are paced by the client alone, never by the team's per-minute limit.
      await setTeamLimits(ctx, account.teamId, { requestsPerMinute: 100_000_000 });
      teams.push({ label, size, tag, teamId: account.teamId, apiKey: account.apiKey });
      const sql = postgres(bench.url, { max: 1, onnotice: () => {} });
      try {
        const started = performance.now();
        await seedTeam(sql, teams.at(-1)!, account.userId, new Date());
        log(
          `seeded ${size} evaluations in team ${label} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
        );
      } finally {
        await sql.end();
      }
    }
    // As autovacuum would have long since done on tables this size: statistics for the planner, visibility map.
    const sql = postgres(bench.url, { max: 1, onnotice: () => {} });
    try {
      const started = performance.now();
      await sql`vacuum analyze evaluations`;
      await sql`vacuum analyze comparisons`;
      log(`vacuumed and analyzed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } finally {
      await sql.end();
    }
    await bench.database.close();

    web = startRubricon(serverEnv(bench.url, dataDir), port);
    await waitReady(
      "rubricon",
      web,
      `${baseUrl}/api/v1/evaluations?limit=1`,
      { authorization: `Bearer ${teams[0]!.apiKey}` },
      120_000,
    );
    const cpuMs = serverCpu(web, "server.mjs");
    log("rubricon ready");
    // What the server spends with no requests at all is in every series' CPU figure too; shown beside them.
    let idleCpuMsPerS: number | undefined;
    if (cpuMs) {
      const before = cpuMs();
      await new Promise((r) => setTimeout(r, IDLE_S * 1000));
      idleCpuMsPerS = (cpuMs() - before) / IDLE_S;
    }

    const pages = [
      { page: "first page", query: () => `limit=${PAGE}`, first: () => 1 },
      {
        page: "later page (starting_after the middle item)",
        query: (t: ScaleTeam) => `limit=${PAGE}&starting_after=${evaluationId(t.tag, t.size / 2)}`,
        first: (t: ScaleTeam) => t.size / 2 + 1,
      },
    ];
    const rows: ScaleRow[] = [];
    for (const { page, query, first } of pages) {
      const urls = teams.map((team) => `${baseUrl}/api/v1/evaluations?${query(team)}`) as [string, string];
      for (const [i, team] of teams.entries())
        await assertPage(urls[i]!, team.apiKey, evaluationId(team.tag, first(team)));
      log(`${page}: up to ${REQUESTS} requests per team, alternating, or ${2 * MAX_SERIES_S} s`);
      const [small, large] = await pairedSeries(urls, [teams[0]!.apiKey, teams[1]!.apiKey], cpuMs);
      for (const [team, s] of [
        [teams[0]!, small],
        [teams[1]!, large],
      ] as const)
        log(`${page}, team ${team.label}: ${s.requests} requests, p50 ${s.p50Ms.toFixed(1)} ms`);
      const ratio = large.p50Ms / small.p50Ms;
      rows.push({ page, small, large, ratio, pass: ratio <= TARGET_RATIO });
    }

    const figures: Figure[] = rows.flatMap((r) => [
      atMost(`${r.page}: large/small team p50`, r.ratio, "", TARGET_RATIO),
      info(`${r.page}: small team p50`, r.small.p50Ms, "ms"),
      info(`${r.page}: large team p50`, r.large.p50Ms, "ms"),
    ]);
    if (idleCpuMsPerS !== undefined) figures.push(info("idle server CPU", idleCpuMsPerS, "ms/s"));
    const written = writeFigures("scale", figures, {
      teams: teams.map((t) => ({ label: t.label, evaluations: t.size })),
      requestsPerSeries: REQUESTS,
      maxSeriesS: MAX_SERIES_S,
      targetRatio: TARGET_RATIO,
      idleCpuMsPerS,
      rows,
    });
    log(`results written to ${written}`);
    return { rows, idleCpuMsPerS };
  } finally {
    await stopServer(web);
    await bench
      .drop()
      .catch((err: unknown) => log(`could not drop ${bench.name}: ${(err as Error).message}`));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const fmt = (n: number | undefined, digits = 1) => (n === undefined ? "-" : n.toFixed(digits));

export function printScaleRows({ rows, idleCpuMsPerS }: ScaleResult): void {
  const [smallLabel, largeLabel] = [SMALL, LARGE].map((n) =>
    n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`,
  ) as [string, string];
  const count = (s: Series) => `${s.requests}${s.capped ? "*" : ""}`;
  const table = renderTable(
    [
      `GET /evaluations?limit=${PAGE}`,
      `${smallLabel} p50 ms`,
      "p95 ms",
      `${largeLabel} p50 ms`,
      "p95 ms",
      `${largeLabel}/${smallLabel} p50`,
      `≤ ${TARGET_RATIO}`,
      "requests",
      "cpu ms/req",
    ],
    rows.map((r) => [
      r.page,
      fmt(r.small.p50Ms),
      fmt(r.small.p95Ms),
      fmt(r.large.p50Ms),
      fmt(r.large.p95Ms),
      fmt(r.ratio, 2),
      r.pass ? "pass" : "FAIL",
      `${count(r.small)} / ${count(r.large)}`,
      `${fmt(r.small.cpuMsPerRequest, 2)} / ${fmt(r.large.cpuMsPerRequest, 2)}`,
    ]),
  );
  process.stdout.write(
    `${table}\n` +
      `Teams of ${smallLabel} and ${largeLabel} evaluations; sequential requests on one connection through the API,\n` +
      `alternating between the teams after ${WARMUP_REQUESTS} warm-up requests, timed at the client (${REQUESTS} per\n` +
      `series, * = stopped at the ${2 * MAX_SERIES_S} s cap). cpu ms/req: Rubricon's process CPU time (utime + stime\n` +
      `from /proc/<pid>/stat) over both series divided by their requests; idle,\n` +
      `the server spends ${fmt(idleCpuMsPerS, 2)} ms of CPU per second, which is included.\n`,
  );
}
