import { EvaluationList } from "@rubricon/contracts";
import { testRedisUrl } from "@rubricon/vitest-config/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisSlidingWindow } from "../src/limits/redis-sliding-window";
import { bearer, call, mintApiKey, signUp } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";
import { silentServer, TcpProxy } from "./helpers/tcp-proxy";

/**
 * Redis that accepts connections and never answers (a hung server, a stalled network) must not hang the API:
 * each request finishes within the command timeout and serves without a limit, as when Redis refuses
 * connections, and the limits come back with Redis.
 */
let proxy: TcpProxy;
let server: TestServer;
let key: string;

beforeAll(async () => {
  const redisUrl = await testRedisUrl();
  proxy = TcpProxy.to(redisUrl);
  await proxy.listen();
  server = await startTestServer({
    env: { REDIS_URL: proxy.url(redisUrl), REDIS_COMMAND_TIMEOUT_MS: "300" },
  });
  const user = await signUp(server, "hung-redis");
  key = await mintApiKey(server, user, ["*"]);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await proxy?.close();
});

async function timedList(): Promise<{ status: number; ms: number; limited: boolean }> {
  const started = Date.now();
  const res = await call(EvaluationList, `${server.api}/evaluations`, { headers: bearer(key) });
  return { status: res.status, ms: Date.now() - started, limited: res.headers.has("x-ratelimit-limit") };
}

describe("a hung Redis", () => {
  it("at start: the connection gives up within seconds instead of hanging the start", async () => {
    const silent = await silentServer();
    try {
      const started = Date.now();
      await expect(RedisSlidingWindow.connect(`redis://127.0.0.1:${silent.port}`, "t:", 300)).rejects.toThrow(
        /Cannot reach Redis at REDIS_URL/,
      );
      expect(Date.now() - started).toBeLessThan(8_000);
    } finally {
      await silent.close();
    }
  }, 20_000);

  it("paused mid-way: requests still finish quickly, unlimited, and limits return with Redis", async () => {
    const before = await timedList();
    expect(before).toMatchObject({ status: 200, limited: true });

    proxy.pause();
    const during = [];
    for (let i = 0; i < 6; i++) during.push(await timedList());
    for (const r of during) {
      expect(r.status).toBe(200);
      // The command timeout (300 ms) plus the request itself; without it each request waits for ever.
      expect(r.ms).toBeLessThan(2_000);
      expect(r.limited).toBe(false);
    }
    // Concurrent requests on the hung connection too.
    const burst = await Promise.all(Array.from({ length: 10 }, () => timedList()));
    for (const r of burst) expect(r).toMatchObject({ status: 200 });
    expect(Math.max(...burst.map((r) => r.ms))).toBeLessThan(3_000);

    await proxy.restore();
    const deadline = Date.now() + 15_000;
    let after = await timedList();
    while (!after.limited && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      after = await timedList();
    }
    expect(after).toMatchObject({ status: 200, limited: true });
  }, 60_000);

  it("cut: requests are served at once without a limit", async () => {
    await proxy.cut();
    try {
      for (let i = 0; i < 4; i++) {
        const r = await timedList();
        expect(r).toMatchObject({ status: 200, limited: false });
        expect(r.ms).toBeLessThan(2_000);
      }
    } finally {
      await proxy.restore();
    }
  }, 30_000);
});
