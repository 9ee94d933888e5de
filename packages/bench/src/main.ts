/**
 * `pnpm bench`: the real app (`next start`) against a minimal node:http + postgres.js yardstick doing the same SQL,
 * on the same freshly seeded Postgres database, four routes each, loopback only. Rubricon passes a route when it
 * serves at least TARGET_RATIO of the yardstick's requests per second.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { benchLimits, printLimitsRows } from "./limits-bench";
import { type LoadOptions, type LoadResult, type LoadTarget, runLoad } from "./load";
import { benchRatings, printRatingsRows } from "./ratings-bench";
import { type BenchDatabase, createBenchDatabase, DEFAULT_ADMIN_URL, seed } from "./seed";
import { benchWebhooks, printWebhooksRows } from "./webhooks-bench";

const TARGET_RATIO = 0.67;
/** Rounds per route, alternating which server goes first; the round with the median ratio is reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const EVALUATIONS = 200;
const LOAD: LoadOptions = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  durationS: Number(process.env.BENCH_DURATION_S ?? 10),
  warmupS: Number(process.env.BENCH_WARMUP_S ?? 2),
};

const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const REPO_ROOT = resolve(BENCH_DIR, "../..");
const WEB_DIR = join(REPO_ROOT, "apps/web");

function log(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((done, fail) => {
    // Build output goes to stderr so stdout keeps only the results table.
    const child = spawn(command, args, {
      cwd,
      stdio: ["ignore", process.stderr, process.stderr],
    });
    child.once("error", fail);
    child.once("exit", (code) =>
      code === 0 ? done() : fail(new Error(`${command} ${args.join(" ")} exited with ${code}`)),
    );
  });
}

/** A server process in its own process group, so stopping it also stops what its launcher (pnpm) started. */
function startServer(
  name: string,
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string | undefined>,
): ChildProcess {
  const child = spawn(command, args, {
    cwd,
    env: env as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let tail = "";
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  child.once("exit", (code, signal) => {
    if (signal === null && code !== 0) log(`${name} exited with ${code}:\n${tail}`);
  });
  return child;
}

async function stopServer(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }, 5000);
  await exited;
  clearTimeout(timer);
}

async function waitReady(
  name: string,
  child: ChildProcess,
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer";
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited before it was ready`);
    try {
      const res = await fetch(url, { headers });
      if (res.status === 200) return;
      last = `HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${name} not ready at ${url} after ${timeoutMs} ms (${last})`);
}

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

function table(rows: RouteResult[]): string {
  const header = [
    "route",
    "rubricon req/s",
    "p50 ms",
    "p99 ms",
    "yardstick req/s",
    "p50 ms",
    "p99 ms",
    "ratio",
    `≥ ${TARGET_RATIO}`,
  ];
  const body = rows.map((r) => [
    r.route,
    fmt(r.rubricon.requestsPerSec),
    fmt(r.rubricon.p50Ms, 1),
    fmt(r.rubricon.p99Ms, 1),
    fmt(r.yardstick.requestsPerSec),
    fmt(r.yardstick.p50Ms, 1),
    fmt(r.yardstick.p99Ms, 1),
    fmt(r.ratio, 2),
    r.pass ? "pass" : "FAIL",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

/** The API against the yardstick: answers 0 when every route reaches the target ratio. */
async function benchApi(): Promise<number> {
  const adminUrl = process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL;
  if (!existsSync(join(WEB_DIR, ".next", "BUILD_ID"))) {
    log("apps/web has no production build; running pnpm --filter @rubricon/web build");
    await run("pnpm", ["--filter", "@rubricon/web", "build"], REPO_ROOT);
  }

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

    // NODE_ENV is left to each server (next start sets production); an inherited "test" would change behaviour.
    const { NODE_ENV: _nodeEnv, ...inherited } = process.env;
    const serverEnv = {
      ...inherited,
      DATABASE_URL: bench.url,
      DATA_DIR: dataDir,
    };
    web = startServer("rubricon (next start)", "pnpm", ["--filter", "@rubricon/web", "start"], REPO_ROOT, {
      ...serverEnv,
      PORT: String(webPort),
      BASE_URL: webUrl,
    });
    yardstick = startServer(
      "yardstick",
      process.execPath,
      ["--import", "tsx", join(BENCH_DIR, "src/yardstick-server.ts")],
      BENCH_DIR,
      {
        ...serverEnv,
        PORT: String(yardstickPort),
        BASE_URL: yardstickUrl,
      },
    );

    const auth = { authorization: `Bearer ${seeded.apiKey}` };
    const firstId = seeded.evaluationIds[0]!;
    const laterCursor = seeded.evaluationIds[99]!;
    await Promise.all([
      waitReady("rubricon", web, `${webUrl}/api/v1/evaluations/${firstId}`, auth, 120_000),
      waitReady("yardstick", yardstick, `${yardstickUrl}/api/v1/evaluations/${firstId}`, auth, 30_000),
    ]);
    log("both servers ready");

    const routes: { route: string; target: (base: string) => LoadTarget }[] = [
      {
        route: "GET /evaluations/{id}",
        target: (b) => ({
          url: `${b}/api/v1/evaluations/${firstId}`,
          method: "GET",
          headers: auth,
        }),
      },
      {
        route: "GET /evaluations?limit=20",
        target: (b) => ({
          url: `${b}/api/v1/evaluations?limit=20`,
          method: "GET",
          headers: auth,
        }),
      },
      {
        route: "GET /evaluations?limit=20&starting_after",
        target: (b) => ({
          url: `${b}/api/v1/evaluations?limit=20&starting_after=${laterCursor}`,
          method: "GET",
          headers: auth,
        }),
      },
      {
        route: "POST /evaluations (SSE, 1 url)",
        target: (b) => ({
          url: `${b}/api/v1/evaluations`,
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({
            name: "Bench create",
            type: "SSE",
            designUrls: [{ url: "https://example.com/new" }],
          }),
        }),
      },
    ];

    // Each route answers correctly on both servers before it is timed, so a fast error page cannot pass.
    for (const { route, target } of routes) {
      for (const base of [webUrl, yardstickUrl]) {
        const t = target(base);
        const res = await fetch(t.url, {
          method: t.method,
          headers: t.headers,
          body: t.body,
        });
        if (res.status !== (t.method === "POST" ? 201 : 200)) {
          throw new Error(`${route} on ${base} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        }
      }
    }

    const results: RouteResult[] = [];
    for (const { route, target } of routes) {
      // On a small machine one run swings by a fifth either way; a ratio is taken within a round (both servers
      // measured back to back), and the median round keeps one slow moment of the machine from deciding it.
      const rounds: Round[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const order =
          round % 2 === 0 ? (["rubricon", "yardstick"] as const) : (["yardstick", "rubricon"] as const);
        const pair: Partial<Record<"rubricon" | "yardstick", LoadResult>> = {};
        for (const side of order) {
          log(`${route}: ${side} (round ${round + 1} of ${ROUNDS})`);
          pair[side] = await runLoad(target(side === "rubricon" ? webUrl : yardstickUrl), LOAD);
        }
        rounds.push(pair as Round);
        log(
          `${route}: round ${round + 1} ratio ${(pair.rubricon!.requestsPerSec / pair.yardstick!.requestsPerSec).toFixed(2)}`,
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

    process.stdout.write(`${table(results)}\n`);
    const resultsDir = join(BENCH_DIR, "results");
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(
      join(resultsDir, "latest.json"),
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          node: process.version,
          targetRatio: TARGET_RATIO,
          load: LOAD,
          rounds: ROUNDS,
          evaluations: seeded.evaluationIds.length,
          routes: results,
          pass: results.every((r) => r.pass),
        },
        null,
        2,
      )}\n`,
    );
    log(`results written to ${join(resultsDir, "latest.json")}`);
    return results.every((r) => r.pass) ? 0 : 1;
  } finally {
    await cleanup();
  }
}

async function benchRatingsSection(): Promise<number> {
  const bench = await createBenchDatabase(process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL);
  try {
    const rows = await benchRatings(bench, log);
    printRatingsRows(rows);
    return rows.every((r) => r.pass !== false) ? 0 : 1;
  } finally {
    await bench.drop();
  }
}

async function benchWebhooksSection(): Promise<number> {
  const bench = await createBenchDatabase(process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL);
  try {
    const rows = await benchWebhooks(bench, log);
    printWebhooksRows(rows);
    return rows.every((r) => r.pass !== false) ? 0 : 1;
  } finally {
    await bench.drop();
  }
}

async function benchLimitsSection(): Promise<number> {
  const rows = await benchLimits(log);
  printLimitsRows(rows);
  return rows.every((r) => r.pass !== false) ? 0 : 1;
}

/** Sections of `pnpm bench`; name some (`pnpm bench ratings`) to run only those. */
const SECTIONS: Record<string, () => Promise<number>> = {
  api: benchApi,
  ratings: benchRatingsSection,
  limits: benchLimitsSection,
  webhooks: benchWebhooksSection,
};

async function main(): Promise<number> {
  const wanted = process.argv.slice(2).filter((a) => a !== "--");
  const unknown = wanted.filter((name) => !(name in SECTIONS));
  if (unknown.length > 0) {
    log(`unknown section ${unknown.join(", ")}; sections: ${Object.keys(SECTIONS).join(", ")}`);
    return 2;
  }
  let code = 0;
  for (const [name, run] of Object.entries(SECTIONS)) {
    if (wanted.length > 0 && !wanted.includes(name)) continue;
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
