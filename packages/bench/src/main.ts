/**
 * `pnpm bench`: the production server (`pnpm start`) against the yardstick (a raw node:http + postgres.js server,
 * see yardstick-server.ts) on the same freshly seeded Postgres database, four routes each, loopback only. Before
 * anything is timed both servers must give the same answers (check-responses.ts). Rubricon passes a route when it
 * serves at least TARGET_RATIO of the yardstick's requests per second.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchAutousers } from "./autousers-bench";
import { compareResponses, type Probe } from "./check-responses";
import { benchCli, printCliRows } from "./cli-bench";
import { allPass, atLeast, atMost, type Figure, info, printFigures, writeFigures } from "./figures";
import { benchJudge } from "./judge/judge-bench";
import { benchLimits, printLimitsRows } from "./limits-bench";
import { type LoadOptions, type LoadResult, type LoadTarget, runLoad } from "./load";
import { benchPeople } from "./people/people-bench";
import { benchPool, POOL_TARGET, printPoolRows } from "./pool-bench";
import { benchRatings } from "./ratings-bench";
import { benchScale, printScaleRows } from "./scale-bench";
import { type BenchDatabase, createBenchDatabase, DEFAULT_ADMIN_URL, seed } from "./seed";
import {
  BENCH_DIR,
  ensureWebBuild,
  freePort,
  log,
  profileArgs,
  serverCounters,
  serverEnv,
  startRubricon,
  startServer,
  stopServer,
  waitReady,
} from "./servers";
import { benchStartup, printStartupRows } from "./startup-bench";
import { renderTable } from "./table";
import { benchWebhooks } from "./webhooks-bench";

const TARGET_RATIO = 0.85;
/** Rounds per route, alternating which server goes first; the round with the median ratio is reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Node CPU a list page may cost Rubricon's server. */
const LIST_CPU_TARGET_MS = 1;
const EVALUATIONS = 200;
/** `BENCH_ROUTES=GET /evaluations/{id}` (comma-separated parts of route names) times only the routes named. */
const ONLY_ROUTES = (process.env.BENCH_ROUTES ?? "")
  .split(",")
  .map((part) => part.trim())
  .filter(Boolean);
const LOAD: LoadOptions = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  durationS: Number(process.env.BENCH_DURATION_S ?? 10),
  warmupS: Number(process.env.BENCH_WARMUP_S ?? 2),
};

interface RouteResult {
  route: string;
  rubricon: LoadResult;
  yardstick: LoadResult;
  ratio: number;
  pass: boolean;
}

interface Round {
  rubricon: LoadResult;
  yardstick: LoadResult;
}

function ratioOf(round: Round): number {
  return round.yardstick.requestsPerSec > 0
    ? round.rubricon.requestsPerSec / round.yardstick.requestsPerSec
    : 0;
}

/** The round whose ratio is the median (the upper one of an even count). */
function medianRound(rounds: Round[]): Round {
  const sorted = [...rounds].sort((a, b) => ratioOf(a) - ratioOf(b));
  return sorted[Math.floor(sorted.length / 2)]!;
}

function fmt(n: number, digits = 0): string {
  return n.toFixed(digits);
}

const cpu = (r: LoadResult) => (r.cpuMsPerRequest === undefined ? "-" : fmt(r.cpuMsPerRequest, 2));

function table(rows: RouteResult[]): string {
  const header = [
    "route",
    "rubricon req/s",
    "p50 ms",
    "p99 ms",
    "cpu ms/req",
    "yardstick req/s",
    "p50 ms",
    "p99 ms",
    "cpu ms/req",
    "ratio",
    `≥ ${TARGET_RATIO}`,
  ];
  const body = rows.map((r) => [
    r.route,
    fmt(r.rubricon.requestsPerSec),
    fmt(r.rubricon.p50Ms, 1),
    fmt(r.rubricon.p99Ms, 1),
    cpu(r.rubricon),
    fmt(r.yardstick.requestsPerSec),
    fmt(r.yardstick.p50Ms, 1),
    fmt(r.yardstick.p99Ms, 1),
    cpu(r.yardstick),
    fmt(r.ratio, 2),
    r.pass ? "pass" : "FAIL",
  ]);
  return renderTable(header, body);
}

/** The API against the yardstick: answers 0 when every route reaches the target ratio. */
async function benchApi(): Promise<number> {
  const adminUrl = process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL;
  await ensureWebBuild();

  let bench: BenchDatabase | undefined;
  let web: ChildProcess | undefined;
  let yardstick: ChildProcess | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "rubricon-bench-"));
  const cleanup = async () => {
    await Promise.all([stopServer(web), stopServer(yardstick)]);
    await bench
      ?.drop()
      .catch((err: unknown) => log(`could not drop ${bench?.name}: ${(err as Error).message}`));
    rmSync(dataDir, { recursive: true, force: true });
  };
  const interrupted = () => {
    log("interrupted; cleaning up");
    void cleanup().then(() => process.exit(130));
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);

  try {
    bench = await createBenchDatabase(adminUrl);
    log(`database ${bench.name} created and migrated`);
    const [webPort, yardstickPort] = [await freePort(), await freePort()];
    const webUrl = `http://127.0.0.1:${webPort}`;
    const yardstickUrl = `http://127.0.0.1:${yardstickPort}`;
    const seeded = await seed(bench.database, EVALUATIONS, webUrl);
    // The app and the yardstick open their own pools; this one is no longer needed.
    await bench.database.close();
    log(`seeded ${seeded.evaluationIds.length} evaluations in team ${seeded.teamId}`);

    const env = serverEnv(bench.url, dataDir);
    web = startRubricon(env, webPort);
    // Rubricon's origin for the yardstick's links too, so that both answer the same bytes.
    yardstick = startServer(
      "yardstick",
      process.execPath,
      [...profileArgs("yardstick"), "--import", "tsx", join(BENCH_DIR, "src/yardstick-server.ts")],
      BENCH_DIR,
      { ...env, PORT: String(yardstickPort), BASE_URL: webUrl },
    );

    const auth = { authorization: `Bearer ${seeded.apiKey}` };
    const firstId = seeded.evaluationIds[0]!;
    const laterCursor = seeded.evaluationIds[99]!;
    await Promise.all([
      waitReady("rubricon", web, `${webUrl}/api/v1/evaluations/${firstId}`, auth, 120_000),
      waitReady("yardstick", yardstick, `${yardstickUrl}/api/v1/evaluations/${firstId}`, auth, 120_000),
    ]);
    log("both servers ready");
    const cpuOf = {
      rubricon: serverCounters(web, "server.mjs"),
      yardstick: serverCounters(yardstick, "yardstick-server.ts"),
    };

    const createBody = JSON.stringify({
      name: "Bench create",
      type: "SSE",
      designUrls: [{ url: "https://example.com/new" }],
    });
    const routes: { route: string; probe: Probe }[] = [
      {
        route: "GET /evaluations/{id}",
        probe: { method: "GET", path: `/api/v1/evaluations/${firstId}`, status: 200 },
      },
      {
        route: "GET /evaluations?limit=20",
        probe: { method: "GET", path: "/api/v1/evaluations?limit=20", status: 200 },
      },
      {
        route: "GET /evaluations?limit=20&starting_after",
        probe: {
          method: "GET",
          path: `/api/v1/evaluations?limit=20&starting_after=${laterCursor}`,
          status: 200,
        },
      },
      {
        route: "POST /evaluations (SSE, 1 url)",
        probe: { method: "POST", path: "/api/v1/evaluations", body: createBody, status: 201 },
      },
    ]
      .map(({ route, probe }) => ({ route, probe: { route, ...probe } as Probe }))
      .filter(({ route }) => ONLY_ROUTES.length === 0 || ONLY_ROUTES.some((part) => route.includes(part)));
    const target = (base: string, probe: Probe): LoadTarget => ({
      url: `${base}${probe.path}`,
      method: probe.method,
      headers: probe.body ? { ...auth, "content-type": "application/json" } : auth,
      body: probe.body,
    });

    // Both servers must answer each route alike before it is timed, so neither a fast error page nor a yardstick
    // that answers less than Rubricon can pass.
    const differences = await compareResponses(
      webUrl,
      yardstickUrl,
      auth,
      routes.map((r) => r.probe),
    );
    if (differences.length > 0)
      throw new Error(`the yardstick does not answer as Rubricon does:\n  ${differences.join("\n  ")}`);
    log("both servers answer the four routes alike (bodies, headers)");

    const results: RouteResult[] = [];
    for (const { route, probe } of routes) {
      // On a small machine one run swings by a fifth either way; a ratio is taken within a round (both servers
      // measured back to back), and the median round keeps one slow moment of the machine from deciding it.
      const rounds: Round[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const order =
          round % 2 === 0 ? (["rubricon", "yardstick"] as const) : (["yardstick", "rubricon"] as const);
        const pair: Partial<Record<"rubricon" | "yardstick", LoadResult>> = {};
        for (const side of order) {
          log(`${route}: ${side} (round ${round + 1} of ${ROUNDS})`);
          pair[side] = await runLoad(
            target(side === "rubricon" ? webUrl : yardstickUrl, probe),
            LOAD,
            cpuOf[side]?.cpuMs,
            cpuOf[side]?.writeCalls,
          );
        }
        rounds.push(pair as Round);
        log(
          `${route}: round ${round + 1} ratio ${(pair.rubricon!.requestsPerSec / pair.yardstick!.requestsPerSec).toFixed(2)}` +
            ` (CPU per request: ${fmt(pair.rubricon!.cpuMsPerRequest ?? Number.NaN, 3)} against ${fmt(pair.yardstick!.cpuMsPerRequest ?? Number.NaN, 3)} ms;` +
            ` write system calls per request: ${fmt(pair.rubricon!.writeCallsPerRequest ?? Number.NaN, 2)} against ${fmt(pair.yardstick!.writeCallsPerRequest ?? Number.NaN, 2)})`,
        );
      }
      const chosen = medianRound(rounds);
      const rubricon = { ...chosen.rubricon };
      const yard = { ...chosen.yardstick };
      for (const r of rounds) {
        rubricon.failures = Math.max(rubricon.failures, r.rubricon.failures);
        yard.failures = Math.max(yard.failures, r.yardstick.failures);
      }
      const ratio = ratioOf(chosen);
      for (const [name, r] of [
        ["rubricon", rubricon],
        ["yardstick", yard],
      ] as const) {
        if (r.failures > 0)
          log(`warning: ${route} on ${name} had ${r.failures} failed requests of ${r.requests}`);
      }
      results.push({
        route,
        rubricon,
        yardstick: yard,
        ratio,
        pass: ratio >= TARGET_RATIO && rubricon.failures === 0,
      });
    }

    const listCpu = results
      .filter((r) => r.route.startsWith("GET /evaluations?"))
      .map((r) => r.rubricon.cpuMsPerRequest);
    const cpuPass = listCpu.length > 0 && listCpu.every((c) => c !== undefined && c <= LIST_CPU_TARGET_MS);
    process.stdout.write(
      `${table(results)}\n` +
        `cpu ms/req: the server process's CPU time (user + system, all threads, from /proc/<pid>/stat) over the\n` +
        `measured run divided by the requests it answered, under the same load (${LOAD.connections} connections).\n` +
        `List page Node CPU on Rubricon: ${listCpu.map((c) => (c === undefined ? "-" : c.toFixed(2))).join(" and ")} ms` +
        ` (first, later page); target ≤ ${LIST_CPU_TARGET_MS} ms: ${cpuPass ? "pass" : "FAIL"}\n`,
    );
    const figures: Figure[] = results.flatMap((r) => [
      atLeast(`${r.route}: rubricon / yardstick req/s`, r.ratio, "", TARGET_RATIO),
      info(`${r.route}: rubricon req/s`, r.rubricon.requestsPerSec, "req/s"),
      info(`${r.route}: rubricon p99`, r.rubricon.p99Ms, "ms"),
      info(`${r.route}: yardstick req/s`, r.yardstick.requestsPerSec, "req/s"),
      atMost(`${r.route}: rubricon failed requests`, r.rubricon.failures, "", 0),
    ]);
    for (const [i, c] of listCpu.entries()) {
      const page = i === 0 ? "first" : "later";
      figures.push(atMost(`list page Node CPU (${page} page)`, c ?? Number.NaN, "ms", LIST_CPU_TARGET_MS));
    }
    const written = writeFigures("api", figures, {
      targetRatio: TARGET_RATIO,
      load: LOAD,
      rounds: ROUNDS,
      evaluations: seeded.evaluationIds.length,
      routes: results,
    });
    log(`results written to ${written}`);
    return allPass(figures) ? 0 : 1;
  } finally {
    await cleanup();
  }
}

async function benchRatingsSection(): Promise<number> {
  const bench = await createBenchDatabase(process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL);
  try {
    const figures = await benchRatings(bench, log);
    printFigures("ratings", figures);
    log(`results written to ${writeFigures("ratings", figures)}`);
    return allPass(figures) ? 0 : 1;
  } finally {
    await bench.drop();
  }
}

async function benchWebhooksSection(): Promise<number> {
  const bench = await createBenchDatabase(process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL);
  try {
    const figures = await benchWebhooks(bench, log);
    printFigures("webhooks", figures);
    log(`results written to ${writeFigures("webhooks", figures)}`);
    return allPass(figures) ? 0 : 1;
  } finally {
    await bench.drop();
  }
}

async function benchAutousersSection(): Promise<number> {
  const bench = await createBenchDatabase(process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL);
  try {
    const figures = await benchAutousers(bench, log);
    printFigures("autousers", figures);
    log(`results written to ${writeFigures("autousers", figures)}`);
    return allPass(figures) ? 0 : 1;
  } finally {
    await bench.drop();
  }
}

async function benchScaleSection(): Promise<number> {
  const result = await benchScale(log);
  printScaleRows(result);
  return result.rows.every((r) => r.pass) ? 0 : 1;
}

async function benchLimitsSection(): Promise<number> {
  const rows = await benchLimits(log);
  printLimitsRows(rows);
  const figures = rows.flatMap((r) => r.figures);
  log(`results written to ${writeFigures("limits", figures)}`);
  return allPass(figures) ? 0 : 1;
}

async function benchPoolSection(): Promise<number> {
  const result = await benchPool(process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL, log);
  printPoolRows(result);
  const figures = [
    ...result.windows.map((w, i) => info(`select 1 queries/s, window ${i + 1}`, w, "queries/s")),
    atLeast("last window / first window", result.ratio, "", POOL_TARGET),
  ];
  log(`results written to ${writeFigures("pool", figures)}`);
  return allPass(figures) ? 0 : 1;
}

/** `--name value` or `--name=value` options after the section names (`pnpm bench judge --corpus heldout`). */
function parseArgs(argv: string[]): { sections: string[]; flags: Record<string, string> } {
  const sections: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") continue;
    if (!arg.startsWith("--")) {
      sections.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    if (eq > 0) flags[arg.slice(2, eq)] = arg.slice(eq + 1);
    else if (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("--")) flags[arg.slice(2)] = argv[++i]!;
    else flags[arg.slice(2)] = "true";
  }
  return { sections, flags };
}

const { sections: wantedSections, flags } = parseArgs(process.argv.slice(2));

async function benchJudgeSection(): Promise<number> {
  const bench = await createBenchDatabase(process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL);
  try {
    const result = await benchJudge(bench.database, flags, log);
    return result.pass ? 0 : 1;
  } finally {
    await bench.drop();
  }
}

async function benchPeopleSection(): Promise<number> {
  const bench = await createBenchDatabase(process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL);
  try {
    return (await benchPeople(bench.database, flags, log)).pass ? 0 : 1;
  } finally {
    await bench.drop();
  }
}

async function benchStartupSection(): Promise<number> {
  const figures = await benchStartup(process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL, log);
  printStartupRows(figures);
  return figures.every((f) => f.pass) ? 0 : 1;
}

async function benchCliSection(): Promise<number> {
  const figures = benchCli(log);
  printCliRows(figures);
  log(`results written to ${writeFigures("cli", figures)}`);
  return figures.every((f) => f.pass !== false) ? 0 : 1;
}

/**
 * Sections of `pnpm bench`; name some (`pnpm bench ratings`) to run only those. `judge` and `people` run only when
 * named: they install page templates from npm or read a published rated set, and rate hundreds of captures.
 */
const SECTIONS: Record<string, () => Promise<number>> = {
  api: benchApi,
  scale: benchScaleSection,
  ratings: benchRatingsSection,
  limits: benchLimitsSection,
  pool: benchPoolSection,
  webhooks: benchWebhooksSection,
  autousers: benchAutousersSection,
  startup: benchStartupSection,
  cli: benchCliSection,
  judge: benchJudgeSection,
  people: benchPeopleSection,
};
const ON_REQUEST = new Set(["judge", "people"]);

async function main(): Promise<number> {
  const wanted = wantedSections;
  const unknown = wanted.filter((name) => !(name in SECTIONS));
  if (unknown.length > 0) {
    log(`unknown section ${unknown.join(", ")}; sections: ${Object.keys(SECTIONS).join(", ")}`);
    return 2;
  }
  let code = 0;
  for (const [name, run] of Object.entries(SECTIONS)) {
    if (wanted.length > 0 ? !wanted.includes(name) : ON_REQUEST.has(name)) continue;
    log(`section ${name}`);
    code = Math.max(code, await run());
  }
  return code;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    log(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exitCode = 1;
  },
);
