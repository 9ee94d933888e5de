import { randomBytes } from "node:crypto";
import { Evaluation, EvaluationList } from "@rubricon/contracts";
import { fixedClock } from "@rubricon/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RedisSlidingWindow } from "../src/limits/redis-sliding-window";
import { configureLogging } from "../src/observability/logger";
import { expectError, SSE_BODY } from "./helpers/assertions";
import { bearer, call, errorOf, mintApiKey, signUp } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

// Two instances of the app on one database and one Redis, as behind a load balancer.
const T0 = new Date("2026-11-22T10:00:00.000Z");
const clock = fixedClock(T0);
let a: TestServer;
let b: TestServer;

describe("limits across app instances", () => {
  beforeAll(async () => {
    const env = { REDIS_KEY_PREFIX: `rubricon-test:${randomBytes(6).toString("hex")}:` };
    a = await startTestServer({ clock, env });
    b = await startTestServer({ clock, env, database: a.database });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  async function freeKey(label: string): Promise<string> {
    const user = await signUp(a, label, { plan: "free" });
    clock.set(new Date(T0.getTime() - 86_400_000));
    const key = await mintApiKey(a, user, ["*"]);
    clock.set(T0);
    return key;
  }

  it("share one team's per-minute budget", async () => {
    const key = await freeKey("two-instances");
    for (let i = 0; i < 60; i++) {
      const res = await call(EvaluationList, `${(i % 2 ? a : b).api}/evaluations`, { headers: bearer(key) });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(59 - i));
    }
    for (const server of [a, b]) {
      expectError(await call(EvaluationList, `${server.api}/evaluations`, { headers: bearer(key) }), 429, {
        type: "rate_limit_error",
        code: "rate_limit_exceeded",
      });
    }
  });

  it("accept exactly the budget from concurrent requests spread over both", async () => {
    const key = await freeKey("concurrent-instances");
    const results = await Promise.all(
      Array.from({ length: 90 }, (_, i) =>
        call(EvaluationList, `${(i % 2 ? a : b).api}/evaluations`, { headers: bearer(key) }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(60);
    expect(results.filter((r) => r.status === 429)).toHaveLength(30);
  });

  it("share one monthly quota", async () => {
    const key = await freeKey("quota-instances");
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(Evaluation, `${(i % 2 ? a : b).api}/evaluations`, {
          method: "POST",
          headers: bearer(key),
          body: SSE_BODY,
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    expect(results.filter((r) => r.status === 429 && errorOf(r).code === "quota_exceeded")).toHaveLength(7);
  });
});

describe("when Redis goes away", () => {
  it("serves requests without limits or headers, and tells the operator", async () => {
    const server = await startTestServer({ clock });
    // The operator reads it in the process's log: capture the log's lines.
    const lines: string[] = [];
    configureLogging({ logLevel: "warn", logFormat: "json" }, "web", {
      write: (line: string) => lines.push(line),
    });
    try {
      const user = await signUp(server, "redis-down", { plan: "free" });
      const key = await mintApiKey(server, user, ["*"]);
      const before = await call(EvaluationList, `${server.api}/evaluations`, { headers: bearer(key) });
      expect(before.headers.get("x-ratelimit-limit")).toBe("60");
      (server.app.services.limits.window as RedisSlidingWindow).redis.disconnect();
      for (let i = 0; i < 70; i++) {
        const res = await call(EvaluationList, `${server.api}/evaluations`, { headers: bearer(key) });
        expect(res.status).toBe(200);
        expect(res.headers.get("x-ratelimit-limit")).toBeNull();
      }
      expect(lines.join("\n")).toMatch(/rate limits not applied \(store failed\)/);
    } finally {
      configureLogging({ logLevel: "silent", logFormat: "json" }, "rubricon");
      await server.close();
    }
  });
});
