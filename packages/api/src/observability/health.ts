/**
 * Liveness (`/healthz`: the process answers, nothing else is touched) and readiness (`/readyz`: each dependency
 * answers within a short timeout). Bodies name checks and their state only: no hosts, versions or messages that
 * could carry a secret; the cause of a failure goes to the log.
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { appliedMigrationCount, type FileStorage } from "@rubricon/core";
import type { Database } from "@rubricon/db";
import { migrationsFolder } from "@rubricon/db";
import type { Env } from "../config/env";
import { checkWritable } from "../config/startup";
import { log } from "./logger";
import { dependencyUp } from "./metrics";

export interface HealthCheck {
  name: string;
  run(): Promise<void>;
  /**
   * The process serves without it (Redis: rate limits fail open). Failing, readiness reports it `degraded` in the
   * body and the `rubricon_dependency_up` gauge but stays 200: a shared dependency's outage would otherwise take
   * every replica out of the load balancer at once, though each of them can serve.
   */
  degradable?: boolean;
}

/**
 * How long one probe's answer is reused. Probes are public and cost a query each: without reuse, a burst of them
 * fills the database pool ahead of real requests. One probe runs at a time per process; callers meanwhile share it.
 */
export const READINESS_REUSE_MS = 1_000;

/** Each check's budget: together they answer well within a load balancer's usual 1 s probe timeout. */
export const CHECK_TIMEOUT_MS = 800;

let migrationsAtHead: number | undefined;
function expectedMigrations(): number {
  migrationsAtHead ??= (
    JSON.parse(readFileSync(join(migrationsFolder(), "meta/_journal.json"), "utf8")) as { entries: unknown[] }
  ).entries.length;
  return migrationsAtHead;
}

/** Postgres (or the embedded database) answers, and every migration this build ships has run. */
export function databaseCheck(database: Pick<Database, "db">): HealthCheck {
  return {
    name: "database",
    async run() {
      const n = await appliedMigrationCount(database.db);
      const expected = expectedMigrations();
      if (n !== expected) throw new Error(`migrations: ${n} of ${expected} applied`);
    },
  };
}

export function redisCheck(ping: () => Promise<unknown>): HealthCheck {
  return { name: "redis", degradable: true, run: async () => void (await ping()) };
}

/** The file store takes writes (local) or the bucket answers (S3). */
export function fileStoreCheck(env: Env, storage: FileStorage): HealthCheck {
  return {
    name: "files",
    async run() {
      if (storage.kind === "s3") await storage.size("health/readiness-probe");
      else checkWritable({ ...env, databaseUrl: env.databaseUrl ?? "external" });
    },
  };
}

function withTimeout(check: HealthCheck, ms: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    check.run().then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

export interface Readiness {
  status: "ok" | "degraded" | "failing" | "draining";
  checks: Record<string, "ok" | "failing" | "timeout">;
}

export async function readiness(checks: HealthCheck[], draining = false): Promise<Readiness> {
  const results = await Promise.all(
    checks.map(async (check) => {
      try {
        await withTimeout(check, CHECK_TIMEOUT_MS);
        dependencyUp.set({ dependency: check.name }, 1);
        return [check.name, "ok"] as const;
      } catch (err) {
        dependencyUp.set({ dependency: check.name }, 0);
        const message = err instanceof Error ? err.message : String(err);
        log().warn({ check: check.name, reason: message }, `readiness check ${check.name} failed`);
        return [check.name, message.startsWith("no answer within") ? "timeout" : "failing"] as const;
      }
    }),
  );
  const byName = new Map(checks.map((c) => [c.name, c]));
  const down = results.filter(([, state]) => state !== "ok");
  const failing = down.some(([name]) => !byName.get(name)?.degradable);
  return {
    status: draining ? "draining" : failing ? "failing" : down.length > 0 ? "degraded" : "ok",
    checks: Object.fromEntries(results),
  };
}

interface Probe {
  pending?: Promise<Readiness>;
  last?: { at: number; ready: Readiness };
}
const probes = new WeakMap<HealthCheck[], Probe>();

/** The checks' last answer if it is under a second old, else the probe already running, else a new one. */
function probeOnce(checks: HealthCheck[]): Promise<Readiness> {
  const p: Probe = probes.get(checks) ?? {};
  probes.set(checks, p);
  if (p.last && performance.now() - p.last.at < READINESS_REUSE_MS) return Promise.resolve(p.last.ready);
  p.pending ??= readiness(checks).then((ready) => {
    p.last = { at: performance.now(), ready };
    p.pending = undefined;
    return ready;
  });
  return p.pending;
}

const NO_STORE = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" };

/**
 * Answers `/healthz` and `/readyz` (GET or HEAD); false for any other path. A draining process is alive but not
 * ready, so a load balancer stops sending it new requests while it finishes the ones it has.
 */
export function serveHealth(
  req: IncomingMessage,
  res: ServerResponse,
  checks: HealthCheck[],
  draining: () => boolean,
): boolean {
  const path = req.url === undefined ? "" : req.url.split("?", 1)[0];
  if (path !== "/healthz" && path !== "/readyz") return false;
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { ...NO_STORE, Allow: "GET, HEAD" }).end();
    return true;
  }
  if (path === "/healthz") {
    res.writeHead(200, NO_STORE).end(req.method === "HEAD" ? undefined : '{"status":"ok"}');
    return true;
  }
  void probeOnce(checks).then((checked) => {
    // Draining is read now, not from the reused answer: a stop must take the process out at once.
    const ready: Readiness = draining() ? { ...checked, status: "draining" } : checked;
    const serving = ready.status === "ok" || ready.status === "degraded";
    res.writeHead(serving ? 200 : 503, NO_STORE);
    res.end(req.method === "HEAD" ? undefined : JSON.stringify(ready));
  });
  return true;
}

/** `/healthz` and `/readyz` on their own port (the worker, which serves nothing else). */
export async function listenHealth(
  port: number,
  checks: HealthCheck[],
  draining: () => boolean,
): Promise<import("node:http").Server> {
  const { createServer } = await import("node:http");
  const server = createServer((req, res) => {
    if (!serveHealth(req, res, checks, draining)) {
      res.writeHead(404, NO_STORE).end('{"status":"not_found"}');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server;
}

/** A Redis connection of its own for the readiness check (the worker has no other use for Redis). */
export async function redisPing(url: string): Promise<{ ping: () => Promise<unknown>; close: () => void }> {
  // The default export: a bundle loads ioredis (CommonJS) through a chunk that has no named exports.
  const Redis = (await import("ioredis")).default;
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: CHECK_TIMEOUT_MS,
  });
  redis.on("error", () => {});
  redis.connect().catch(() => {});
  return { ping: () => redis.ping(), close: () => redis.disconnect() };
}
