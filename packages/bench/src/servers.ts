import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { findProcessInGroup, processCpuMs, processWriteCalls } from "./process-cpu";

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const REPO_ROOT = resolve(BENCH_DIR, "../..");
const WEB_DIR = join(REPO_ROOT, "apps/web");

export function log(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

export function freePort(): Promise<number> {
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

/**
 * The production server as `pnpm start` runs it: the deployable folder `pnpm build` assembles under dist/.
 * `BENCH_SERVER_ENTRY` names another one (`node tooling/scripts/artifact.mjs --out <dir>` assembles one), to
 * measure two builds one after the other.
 */
export const SERVER_ENTRY = process.env.BENCH_SERVER_ENTRY
  ? resolve(process.env.BENCH_SERVER_ENTRY)
  : join(REPO_ROOT, "dist/apps/web/server.mjs");

/** The production server needs the build; one is made when there is none. */
export async function ensureWebBuild(): Promise<void> {
  if (existsSync(SERVER_ENTRY)) return;
  log("no production build under dist/; running pnpm run build");
  await run("pnpm", ["run", "build"], REPO_ROOT);
}

/** A server process in its own process group, so stopping it also stops what its launcher (pnpm) started. */
export function startServer(
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

export async function stopServer(child: ChildProcess | undefined): Promise<void> {
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

export async function waitReady(
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

/** The servers' environment: this one's, on the given database, without an inherited NODE_ENV. */
export function serverEnv(databaseUrl: string, dataDir: string): Record<string, string | undefined> {
  // NODE_ENV is left to each server (`pnpm start` sets production); an inherited "test" would change behaviour.
  const { NODE_ENV: _nodeEnv, ...inherited } = process.env;
  return { ...inherited, DATABASE_URL: databaseUrl, DATA_DIR: dataDir };
}

/**
 * BENCH_PROFILE_DIR: a V8 CPU profile of a started server for the whole run, written when it stops, into
 * `<dir>/<name>` (Rubricon's, and the yardstick's beside it).
 */
export function profileArgs(name: string): string[] {
  return process.env.BENCH_PROFILE_DIR
    ? ["--cpu-prof", `--cpu-prof-dir=${join(resolve(process.env.BENCH_PROFILE_DIR), name)}`]
    : [];
}

/** Rubricon's production server (`pnpm start`: `/api/v1` on node:http, the rest through Next.js). */
export function startRubricon(env: Record<string, string | undefined>, port: number): ChildProcess {
  return startServer(
    "rubricon (pnpm start)",
    process.execPath,
    [...profileArgs("rubricon"), SERVER_ENTRY],
    WEB_DIR,
    {
      ...env,
      NODE_ENV: "production",
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
    },
  );
}

/**
 * Reads the CPU time of a started server from outside, once it is ready: the node process in the launcher's
 * process group whose command line names `marker` (`server.mjs` for Rubricon).
 */
export function serverCpu(child: ChildProcess, marker: string): (() => number) | undefined {
  return serverCounters(child, marker)?.cpuMs;
}

/** The started server's CPU time and write system calls so far, read from outside as `serverCpu` reads the first. */
export function serverCounters(
  child: ChildProcess,
  marker: string,
): { cpuMs: () => number; writeCalls: () => number } | undefined {
  if (!child.pid) return undefined;
  const pid = findProcessInGroup(child.pid, marker);
  if (pid === undefined) {
    log(`could not find the process of ${marker}; its CPU time is not measured`);
    return undefined;
  }
  return { cpuMs: () => processCpuMs(pid), writeCalls: () => processWriteCalls(pid) };
}
