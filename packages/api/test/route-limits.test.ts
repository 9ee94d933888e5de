import type { Server } from "node:http";
import { fixedClock } from "@rubricon/core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createHttpSurface } from "../src/app";
import { listen } from "../src/http/node-server";
import type { Pipeline } from "../src/http/pipeline";
import type { AppServices, RequestContext } from "../src/request/context";
import { apiProcedure, createCallerFactory, publicProcedure, router } from "../src/trpc/init";
import { expectError } from "./helpers/assertions";
import { bearer, call, errorOf, mintApiKey, readAnswer, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

/**
 * Per-route limits are one line of route meta. The routes that carry them (BYOK probes, design-tool pairing)
 * are not built yet, so these tests mount routes of their own on the real pipeline: the app's services, REST
 * handler and procedures, with the same meta those routes will declare.
 */
const Ok = z.object({ ok: z.literal(true) });
const ok = () => ({ ok: true as const });
const testRouter = router({
  probe: apiProcedure
    .meta({
      openapi: { method: "POST", path: "/test/byok/probe" },
      routeLimit: { key: "user", limit: 5, windowSec: 60 },
    })
    .input(z.object({}))
    .output(Ok)
    .mutation(ok),
  ping: apiProcedure
    .meta({ openapi: { method: "GET", path: "/test/ping" } })
    .input(z.object({}))
    .output(Ok)
    .query(ok),
  pairStart: publicProcedure
    .meta({
      openapi: { method: "POST", path: "/test/figma/start" },
      routeLimit: { key: "ip", limit: 10, windowSec: 60, bucket: "figma-pairing" },
    })
    .input(z.object({}))
    .output(Ok)
    .mutation(ok),
  pairFinish: publicProcedure
    .meta({
      openapi: { method: "POST", path: "/test/figma/finish" },
      routeLimit: { key: "ip", limit: 10, windowSec: 60, bucket: "figma-pairing" },
    })
    .input(z.object({}))
    .output(Ok)
    .mutation(ok),
});

const createCaller = createCallerFactory(testRouter);

const T0 = new Date("2026-11-22T10:00:00.000Z");
const clock = fixedClock(T0);
let server: TestServer;
let handle: (req: Request) => Promise<Response>;
let testApi: string;
let testHttp: Server;

function pipelineFor(services: AppServices): Pipeline {
  return createHttpSurface(services, testRouter).pipeline;
}

beforeAll(async () => {
  // One trusted proxy: the client is the last X-Forwarded-For entry, whatever a client wrote before it.
  server = await startTestServer({ clock, env: { TRUSTED_PROXY_COUNT: "1" } });
  const pipeline = pipelineFor(server.app.services);
  handle = pipeline.handleWeb;
  const listening = await listen(pipeline);
  testHttp = listening.server;
  testApi = `${listening.url}/api/v1`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => testHttp?.close(() => resolve()));
  await server?.close();
});
afterEach(() => clock.set(T0));

async function userKey(label: string): Promise<{ user: TestUser; key: string }> {
  const user = await signUp(server, label);
  return { user, key: await mintApiKey(server, user, ["*"]) };
}
const probe = (key: string) =>
  call(Ok, `${testApi}/test/byok/probe`, { method: "POST", headers: bearer(key) });
const fromAddress = (path: string, forwardedFor: string) =>
  handle(
    new Request(`http://127.0.0.1/api/v1${path}`, {
      method: "POST",
      headers: { "X-Forwarded-For": forwardedFor },
    }),
  );
const limitHeaders = (headers: Headers) => ({
  limit: headers.get("x-ratelimit-limit"),
  remaining: headers.get("x-ratelimit-remaining"),
  retryAfter: headers.get("retry-after"),
});

describe("per-user route limit", () => {
  it("allows 5 a minute per user, refuses the 6th with 429 and Retry-After, and reports the stricter limit", async () => {
    const { key } = await userKey("prober");
    for (let i = 0; i < 5; i++) {
      clock.set(new Date(T0.getTime() + i * 1000));
      const res = await probe(key);
      expect(res.status).toBe(200);
      // The route's 5 binds long before the team's 600: the headers describe the route's window.
      expect(limitHeaders(res.headers)).toEqual({ limit: "5", remaining: String(4 - i), retryAfter: null });
    }
    clock.set(new Date(T0.getTime() + 10_000));
    const refused = await probe(key);
    expectError(refused, 429, { type: "rate_limit_error", code: "rate_limit_exceeded" });
    expect(limitHeaders(refused.headers)).toEqual({ limit: "5", remaining: "0", retryAfter: "50" });
    expect(refused.body.error.message).toMatch(/at most 5 every 60 seconds per user/);

    // Other routes go on, under the team's budget.
    const ping = await call(Ok, `${testApi}/test/ping`, { headers: bearer(key) });
    expect(ping.status).toBe(200);
    expect(limitHeaders(ping.headers)).toMatchObject({ limit: "600" });

    // The window slides: the first probe leaves at 60 s, the second at 61 s.
    clock.set(new Date(T0.getTime() + 60_000));
    expect((await probe(key)).status).toBe(200);
    expect((await probe(key)).status).toBe(429);
    clock.set(new Date(T0.getTime() + 61_000));
    expect((await probe(key)).status).toBe(200);
  });

  it("counts per user: all of a user's credentials share it, other users have their own", async () => {
    const { user, key } = await userKey("two-keys");
    const second = await mintApiKey(server, user, ["*"]);
    for (let i = 0; i < 5; i++) expect((await probe(i % 2 ? key : second)).status).toBe(200);
    expect((await probe(second)).status).toBe(429);
    expect((await probe(key)).status).toBe(429);
    const other = await userKey("other-user");
    expect((await probe(other.key)).status).toBe(200);
  });

  it("still needs credentials first: an anonymous call is 401 and spends nothing", async () => {
    const res = await call(Ok, `${testApi}/test/byok/probe`, { method: "POST" });
    expectError(res, 401, { type: "authentication_error" });
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });

  it("applies to the dashboard's tRPC calls too", async () => {
    const { user } = await userKey("dashboard");
    const ctx = (): RequestContext => ({
      services: server.app.services,
      principal: { kind: "session", userId: user.userId, sessionId: "s" },
      clientIp: "127.0.0.1",
      requestId: crypto.randomUUID(),
      idempotencyKey: null,
      response: { headers: {} },
    });
    for (let i = 0; i < 5; i++) await expect(createCaller(ctx()).probe({})).resolves.toEqual({ ok: true });
    await expect(createCaller(ctx()).probe({})).rejects.toMatchObject({
      cause: { code: "rate_limit_exceeded" },
    });
  });
});

describe("per-address route limit", () => {
  it("allows 10 a minute per client address across the routes of one bucket, without credentials", async () => {
    const client = "203.0.113.7";
    for (let i = 0; i < 10; i++) {
      const res = await fromAddress(i % 2 ? "/test/figma/start" : "/test/figma/finish", client);
      expect(res.status).toBe(200);
      expect(limitHeaders(res.headers)).toEqual({ limit: "10", remaining: String(9 - i), retryAfter: null });
    }
    const refused = await fromAddress("/test/figma/start", client);
    expect(refused.status).toBe(429);
    expect(errorOf(await readAnswer(Ok, refused)).code).toBe("rate_limit_exceeded");
    expect(limitHeaders(refused.headers)).toEqual({ limit: "10", remaining: "0", retryAfter: "60" });
  });

  it("keys on the address the trusted proxy saw, not on what the client forged before it", async () => {
    const client = "198.51.100.20";
    for (let i = 0; i < 10; i++) {
      expect((await fromAddress("/test/figma/start", `10.9.9.${i}, ${client}`)).status).toBe(200);
    }
    expect((await fromAddress("/test/figma/start", `10.9.9.99, ${client}`)).status).toBe(429);
    expect((await fromAddress("/test/figma/start", "198.51.100.21")).status).toBe(200);
  });

  it("works through the HTTP server, where the peer address is the client", async () => {
    const post = () => call(Ok, `${testApi}/test/figma/start`, { method: "POST" });
    clock.set(new Date(T0.getTime() + 3_600_000));
    for (let i = 0; i < 10; i++) expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(429);
  });
});

describe("route limits in log mode", () => {
  it("serves and logs the request over the limit", async () => {
    const logged = pipelineFor({
      ...server.app.services,
      limits: { ...server.app.services.limits, mode: "log" },
    }).handleWeb;
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const post = () =>
        logged(
          new Request("http://127.0.0.1/api/v1/test/figma/start", {
            method: "POST",
            headers: { "X-Forwarded-For": "192.0.2.55" },
          }),
        );
      for (let i = 0; i < 10; i++) expect((await post()).status).toBe(200);
      expect(warn).not.toHaveBeenCalled();
      const over = await post();
      expect(over.status).toBe(200);
      expect(JSON.parse(String(warn.mock.calls[0]![0]))).toMatchObject({
        msg: "limit_exceeded",
        limit: "route",
        name: "figma-pairing",
        mode: "log",
        route: "POST /test/figma/start",
        request_id: over.headers.get("x-request-id"),
      });
    } finally {
      warn.mockRestore();
    }
  });
});
