import type { Server } from "node:http";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  databaseCheck,
  type HealthCheck,
  listenHealth,
  READINESS_REUSE_MS,
  redisCheck,
} from "../src/observability/health";
import { registry } from "../src/observability/metrics";
import { freePort } from "./helpers/process";

/**
 * `/readyz` is public. A burst of probes must not become a burst of database queries that fills the pool ahead of
 * real requests: one probe runs at a time and its answer serves every request for about a second.
 */
let database: TestDatabase;
let statements = 0;
let server: Server;
let base: string;
let redisUp = true;

beforeAll(async () => {
  database = await createTestDatabase(process.env, {
    onQuery: () => {
      statements++;
    },
  });
  const checks: HealthCheck[] = [
    databaseCheck(database),
    redisCheck(async () => {
      if (!redisUp) throw new Error("connect ECONNREFUSED");
    }),
  ];
  const port = await freePort();
  server = await listenHealth(port, checks, () => false);
  base = `http://127.0.0.1:${port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await database?.dispose();
});

describe("readiness probes", () => {
  it("768 concurrent probes run the database check about once a second, not once each", async () => {
    statements = 0;
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 768 }, () =>
        fetch(`${base}/readyz`).then(async (r) => [r.status, await r.json()]),
      ),
    );
    for (const [status, body] of answers) {
      expect(status).toBe(200);
      expect(body).toEqual({ status: "ok", checks: { database: "ok", redis: "ok" } });
    }
    // The check reads the migration table: one statement per probe that ran, so at most one per second that the
    // burst lasted (sending 768 requests takes a loaded machine several seconds), never one per request.
    const seconds = (Date.now() - started) / READINESS_REUSE_MS;
    expect(statements).toBeGreaterThanOrEqual(1);
    expect(statements).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    expect(statements).toBeLessThan(50);
    await new Promise((r) => setTimeout(r, READINESS_REUSE_MS + 100));
    const before = statements;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect(statements).toBe(before + 1);
    // Asked again at once: the answer is reused.
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect(statements).toBe(before + 1);
  }, 60_000);

  it("a dependency the process works around (Redis) is reported degraded, not 503, and in a metric", async () => {
    redisUp = false;
    await new Promise((r) => setTimeout(r, READINESS_REUSE_MS + 100));
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "degraded", checks: { database: "ok", redis: "failing" } });
    const metrics = await registry.metrics();
    expect(metrics).toContain('rubricon_dependency_up{dependency="redis"} 0');
    expect(metrics).toContain('rubricon_dependency_up{dependency="database"} 1');
    redisUp = true;
  });
});
