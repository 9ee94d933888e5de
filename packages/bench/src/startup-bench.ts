/**
 * The startup part of `pnpm bench`: the deployable folder `pnpm build` assembles (dist/), started with plain node
 * as a deployment runs it. For the web + API server (EMBEDDED_WORKER=false, a worker beside it) and the worker
 * (no browser: none is started until an autouser run needs one), it measures the time from spawning the process to
 * its first answer (the server listens once the app and Next are prepared; the worker logs "started" once its
 * database is open and its loops run), then the resident memory after a little use and a few idle seconds.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { atMost, type Figure, writeFigures } from "./figures";
import { processCpuMs } from "./process-cpu";
import { type BenchDatabase, createBenchDatabase } from "./seed";
import { freePort, REPO_ROOT, stopServer } from "./servers";
import { renderTable } from "./table";

export const ARTIFACT_DIR = join(REPO_ROOT, "dist/apps/web");
const READY_TARGET_S = 3;
const WEB_RSS_TARGET_MB = 250;
const WORKER_RSS_TARGET_MB = 150;
/** Starts per process; the median start is reported (a busy machine makes single starts swing). */
const STARTS = Number(process.env.BENCH_STARTUP_RUNS ?? 3);
const IDLE_MS = 5_000;

/** Resident memory of a process, in MB (VmRSS of /proc/<pid>/status). */
export function residentMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  if (!line) throw new Error(`no VmRSS for process ${pid}`);
  return Number(line.replace(/\D+/g, "")) / 1024;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The worker's node flags, as `pnpm worker` and the images start it (tooling/scripts/image.sh). */
const WORKER_FLAGS = ["--max-semi-space-size=2"];

function spawnNode(
  entry: string,
  env: Record<string, string | undefined>,
  flags: string[] = [],
): ChildProcess {
  // The node process itself, without a launcher: its pid is the one measured.
  return spawn(process.execPath, [...flags, join(ARTIFACT_DIR, entry)], {
    cwd: ARTIFACT_DIR,
    env: env as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function output(child: ChildProcess): () => string {
  let text = "";
  const keep = (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-8000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return () => text;
}

async function until(
  child: ChildProcess,
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  tail: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}:\n${tail()}`);
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${what} not ready after ${timeoutMs} ms:\n${tail()}`);
}

interface Start {
  readyS: number;
  /** CPU time (user + system, all threads) the process used until ready: the start on an otherwise idle core. */
  cpuS: number;
  idleMb: number;
}

async function startWeb(env: Record<string, string | undefined>): Promise<Start> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawnNode("server.mjs", {
    ...env,
    PORT: String(port),
    BASE_URL: base,
    EMBEDDED_WORKER: "false",
  });
  const tail = output(child);
  try {
    // The server listens only once the app and Next are prepared: any answer means ready.
    await until(
      child,
      "web server",
      () =>
        fetch(`${base}/api/v1/evaluations`, { signal: AbortSignal.timeout(1000) }).then(
          (r) => r.status === 401,
          () => false,
        ),
      60_000,
      tail,
    );
    const readyS = (performance.now() - started) / 1000;
    const cpuS = processCpuMs(child.pid!) / 1000;
    // A little use, as a first visitor makes: the sign-in page, its assets' route, the API's document, a 401.
    for (const path of ["/", "/sign-in", "/api/v1/openapi.json", "/api/v1/evaluations"]) {
      const res = await fetch(`${base}${path}`, { redirect: "manual" });
      await res.arrayBuffer();
      if (res.status >= 500) throw new Error(`GET ${path} answered ${res.status}:\n${tail()}`);
    }
    await new Promise((r) => setTimeout(r, IDLE_MS));
    return { readyS, cpuS, idleMb: residentMb(child.pid!) };
  } finally {
    await stopServer(child);
  }
}

async function startWorker(env: Record<string, string | undefined>): Promise<Start> {
  const port = await freePort();
  const started = performance.now();
  const child = spawnNode("worker.mjs", { ...env, WORKER_HEALTH_PORT: String(port) }, WORKER_FLAGS);
  const tail = output(child);
  try {
    // Ready as an orchestrator sees it: the worker's own readiness endpoint answers 200.
    await until(
      child,
      "worker",
      () =>
        fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) }).then(
          (r) => r.status === 200,
          () => false,
        ),
      60_000,
      tail,
    );
    const readyS = (performance.now() - started) / 1000;
    const cpuS = processCpuMs(child.pid!) / 1000;
    await new Promise((r) => setTimeout(r, IDLE_MS));
    return { readyS, cpuS, idleMb: residentMb(child.pid!) };
  } finally {
    await stopServer(child);
  }
}

export async function benchStartup(adminUrl: string, log: (m: string) => void): Promise<Figure[]> {
  if (!existsSync(join(ARTIFACT_DIR, "server.mjs"))) {
    throw new Error("dist/ has no build: run `pnpm build` first (it assembles the deployable folder)");
  }
  let bench: BenchDatabase | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "rubricon-startup-"));
  try {
    bench = await createBenchDatabase(adminUrl);
    await bench.database.close();
    const { NODE_ENV: _inherited, ...inherited } = process.env;
    const env = {
      ...inherited,
      NODE_ENV: "production",
      DATABASE_URL: bench.url,
      DATA_DIR: dataDir,
      WEBHOOKS_ENABLED: "true",
    };
    const web: Start[] = [];
    const worker: Start[] = [];
    for (let i = 0; i < STARTS; i++) {
      web.push(await startWeb(env));
      log(
        `startup: web ${i + 1}/${STARTS}: ready ${web.at(-1)!.readyS.toFixed(2)} s (CPU ${web.at(-1)!.cpuS.toFixed(2)} s), ${web.at(-1)!.idleMb.toFixed(0)} MB`,
      );
      worker.push(await startWorker({ ...env, BASE_URL: "http://127.0.0.1:3000" }));
      log(
        `startup: worker ${i + 1}/${STARTS}: ready ${worker.at(-1)!.readyS.toFixed(2)} s (CPU ${worker.at(-1)!.cpuS.toFixed(2)} s), ${worker.at(-1)!.idleMb.toFixed(0)} MB`,
      );
    }
    const figure = (name: string, value: number, unit: string, target: number): Figure =>
      atMost(name, Math.round(value * 100) / 100, unit, target);
    const figures = [
      figure("web + API: cold start to ready", median(web.map((s) => s.readyS)), "s", READY_TARGET_S),
      figure("web + API: CPU time to ready", median(web.map((s) => s.cpuS)), "s", READY_TARGET_S),
      figure("web + API: idle resident memory", median(web.map((s) => s.idleMb)), "MB", WEB_RSS_TARGET_MB),
      figure("worker: cold start to ready", median(worker.map((s) => s.readyS)), "s", READY_TARGET_S),
      figure("worker: CPU time to ready", median(worker.map((s) => s.cpuS)), "s", READY_TARGET_S),
      figure("worker: idle resident memory", median(worker.map((s) => s.idleMb)), "MB", WORKER_RSS_TARGET_MB),
    ];
    log(`results written to ${writeFigures("startup", figures)}`);
    return figures;
  } finally {
    await bench?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function printStartupRows(figures: Figure[]): void {
  const header = ["deployable build (dist/), plain node", "value", "target", "pass"];
  const body = figures.map((f) => [f.name, `${f.value} ${f.unit}`, f.target ?? "", f.pass ? "pass" : "FAIL"]);
  process.stdout.write(
    `${renderTable(header, body)}\n(median of ${STARTS} starts each; CPU time to ready is what the start takes on a core` +
      ` of its own, which a busy machine's wall clock does not show)\n`,
  );
}
