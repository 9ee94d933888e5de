// Processes started from the deployable folder (`pnpm build` → dist/) exactly as docs/deployment.md starts them:
// `node migrate.mjs`, `node server.mjs` and `node --max-semi-space-size=2 worker.mjs` in dist/apps/web (as the
// images' `image.sh start` does), with plain node, NODE_ENV=production and nothing of the repository on the way. The API, end-to-end and deployment suites test
// these, so the build people run is the build under test.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const DIST = process.env.RUBRICON_DIST ? resolve(process.env.RUBRICON_DIST) : join(ROOT, "dist");

/** The secrets every process of one deployment shares (docs/deployment.md). */
export const DIST_SECRETS = {
  OAUTH_JWT_SECRET: "dist-oauth-secret-0123456789abcdef0123456789",
  PLUGIN_JWT_SECRET: "dist-plugin-secret-0123456789abcdef012345678",
  ENCRYPTION_KEY: "1".repeat(64),
};

/** Fails with the command that makes it when the deployable folder is missing (tests never skip for want of it). */
export function requireDist() {
  if (!existsSync(join(DIST, "apps/web/server.mjs"))) {
    throw new Error(
      `${DIST}/apps/web/server.mjs is missing: run \`pnpm build\` first (the tests run what it ships)`,
    );
  }
  return DIST;
}

export function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => done(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** A PATH without the repository's tools, as a server has: the processes must need nothing but node. */
function plainPath() {
  return (process.env.PATH ?? "")
    .split(":")
    .filter((p) => !p.includes("node_modules"))
    .join(":");
}

/** A fresh Postgres database beside `DATABASE_URL`'s, with a function that drops it. */
async function createDatabase(baseUrl) {
  const name = `rubricon_t_dist_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  const psql = (sql) =>
    spawnSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", baseUrl, "-c", sql], { encoding: "utf8" });
  const created = psql(`CREATE DATABASE "${name}"`);
  if (created.status !== 0) throw new Error(`could not create ${name}: ${created.stderr}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => psql(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/**
 * Starts one process of the folder (`apps/web/<entry>.mjs`) with the deployment's environment. Answers its handle:
 * `output()` holds the last lines it wrote, `exited` settles with its exit code.
 */
export function startProcess(entry, env, { dist = DIST } = {}) {
  const flags = entry === "worker" ? ["--max-semi-space-size=2"] : [];
  const child = spawn(process.execPath, [...flags, `${entry}.mjs`], {
    cwd: join(dist, "apps/web"),
    env: { PATH: plainPath(), HOME: process.env.HOME, NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const keep = (chunk) => {
    log = (log + chunk.toString()).slice(-200_000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise((done) => child.once("exit", (code, signal) => done(code ?? signal)));
  return { child, entry, exited, output: () => log };
}

/** Stops a process as an orchestrator does: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopProcess(proc, graceMs = 15_000) {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return proc.exited;
  proc.child.kill("SIGTERM");
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), graceMs);
  const code = await proc.exited;
  clearTimeout(timer);
  return code;
}

/** Waits until `url` answers 200, or fails with the process's output when it exits or time runs out. */
export async function waitForReady(url, proc, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  let exitCode;
  proc.exited.then((code) => {
    exitCode = code;
  });
  while (Date.now() < deadline) {
    if (exitCode !== undefined) {
      throw new Error(
        `${proc.entry} exited with ${exitCode} before it was ready:\n${proc.output().slice(-4000)}`,
      );
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `${proc.entry} was not ready at ${url} within ${timeoutMs} ms:\n${proc.output().slice(-4000)}`,
  );
}

/**
 * A deployment from dist/: migrations applied by `migrate.mjs`, then one web process and, on Postgres, one worker
 * given `REDIS_URL` (the embedded database admits one process, whose embedded worker then runs the loops).
 *
 * - `DATABASE_URL` set: a fresh database of its own beside that one; unset: PGlite under a fresh `DATA_DIR`.
 * - `env`: settings on top of the deployment's (`WEBHOOKS_ENABLED`, …); `worker: false` starts no worker;
 *   `port`: the web process's port (a free one by default).
 */
export async function startDeployment({
  env = {},
  worker = true,
  databaseUrl = process.env.DATABASE_URL,
  port: wantedPort,
} = {}) {
  requireDist();
  const dataDir = mkdtempSync(join(tmpdir(), "rubricon-dist-"));
  const database = databaseUrl ? await createDatabase(databaseUrl) : undefined;
  const port = wantedPort ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const redisUrl = process.env.REDIS_URL || "redis://127.0.0.1:6379";
  const separateWorker = Boolean(database) && worker;
  const workerHealthPort = separateWorker ? await freePort() : undefined;
  const shared = {
    ...DIST_SECRETS,
    BASE_URL: url,
    DATA_DIR: dataDir,
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: `rubricon-dist:${randomBytes(6).toString("hex")}:`,
    CHROMIUM_PATH: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    LOG_LEVEL: process.env.LOG_LEVEL || "warn",
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...env,
  };
  const processes = [];
  const deployment = {
    url,
    api: `${url}/api/v1`,
    databaseUrl: database?.url,
    dataDir,
    env: shared,
    processes,
    workerHealthUrl: workerHealthPort ? `http://127.0.0.1:${workerHealthPort}` : undefined,
    /** Everything the processes wrote, for a failing test's message. */
    output: () => processes.map((p) => `--- ${p.entry}\n${p.output().slice(-6000)}`).join("\n"),
    /** Runs the operator CLI (`node apps/web/admin.mjs …`) against this deployment. */
    admin(args, input) {
      const result = spawnSync(process.execPath, ["admin.mjs", ...args], {
        cwd: join(DIST, "apps/web"),
        env: { PATH: plainPath(), HOME: process.env.HOME, NODE_ENV: "production", ...shared },
        input,
        encoding: "utf8",
        timeout: 60_000,
      });
      return { code: result.status, stdout: result.stdout, stderr: result.stderr };
    },
    async stop() {
      await Promise.all(processes.map((p) => stopProcess(p)));
      database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    const migrate = startProcess("migrate", shared);
    const code = await migrate.exited;
    if (code !== 0) throw new Error(`migrate.mjs exited with ${code}:\n${migrate.output().slice(-4000)}`);
    const web = startProcess("server", {
      ...shared,
      PORT: String(port),
      EMBEDDED_WORKER: separateWorker ? "false" : "true",
    });
    processes.push(web);
    if (separateWorker) {
      processes.push(startProcess("worker", { ...shared, WORKER_HEALTH_PORT: String(workerHealthPort) }));
    }
    await waitForReady(`${url}/readyz`, web);
    if (separateWorker) await waitForReady(`${deployment.workerHealthUrl}/readyz`, processes[1]);
    return deployment;
  } catch (error) {
    await deployment.stop();
    throw error;
  }
}
