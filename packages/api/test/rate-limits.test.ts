import { Evaluation, EvaluationList, Team, Usage, WhoAmI } from "@rubricon/contracts";
import { fixedClock, setTeamLimits, setTeamPlan } from "@rubricon/core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { RedisSlidingWindow } from "../src/limits/redis-sliding-window";
import { MemorySlidingWindow } from "../src/limits/sliding-window";
import { expectError, expectStatus } from "./helpers/assertions";
import { bearer, call, mintApiKey, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer, testRateLimitWindow } from "./helpers/server";

// Whole seconds, so X-RateLimit-Reset and Retry-After can be asserted exactly.
const T0 = new Date("2026-11-22T10:00:00.000Z");
const clock = fixedClock(T0);
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(() => server?.close());
afterEach(() => clock.set(T0));

const unix = (ms: number) => Math.ceil(ms / 1000);
const core = () => ({ db: server.app.services.db, clock, baseUrl: server.url });

async function freeTeam(label: string): Promise<{ user: TestUser; key: string }> {
  const user = await signUp(server, label, { plan: "free" });
  // Minting the key is a request of its own; it happens a day earlier so the window under test starts empty.
  clock.set(new Date(T0.getTime() - 86_400_000));
  const key = await mintApiKey(server, user, ["*"]);
  clock.set(T0);
  return { user, key };
}

const list = (headers: Record<string, string>) =>
  call(EvaluationList, `${server.api}/evaluations`, { headers });
const limitHeaders = (res: { headers: Headers }) => ({
  limit: res.headers.get("x-ratelimit-limit"),
  remaining: res.headers.get("x-ratelimit-remaining"),
  reset: res.headers.get("x-ratelimit-reset"),
  retryAfter: res.headers.get("retry-after"),
});

describe(`requests per minute (${testRateLimitWindow} window)`, () => {
  it("are counted in the window this pass is for", () => {
    const expected = testRateLimitWindow === "redis" ? RedisSlidingWindow : MemorySlidingWindow;
    expect(server.app.services.limits.window).toBeInstanceOf(expected);
  });

  it("serves exactly the plan's 60 in a minute, refuses the 61st with 429 and Retry-After, and slides", async () => {
    const { key } = await freeTeam("rpm");
    for (let i = 0; i < 60; i++) {
      // One request a second for the first 30, then the rest at 30 s.
      clock.set(new Date(T0.getTime() + Math.min(i, 30) * 1000));
      const res = await list(bearer(key));
      expect(res.status, `request ${i + 1}`).toBe(200);
      expect(limitHeaders(res)).toEqual({
        limit: "60",
        remaining: String(59 - i),
        reset: String(unix(T0.getTime() + 60_000)),
        retryAfter: null,
      });
    }
    clock.set(new Date(T0.getTime() + 45_500));
    const refused = await list(bearer(key));
    expectError(refused, 429, { type: "rate_limit_error", code: "rate_limit_exceeded" });
    expect(limitHeaders(refused)).toEqual({
      limit: "60",
      remaining: "0",
      reset: String(unix(T0.getTime() + 60_000)),
      retryAfter: "15", // 14.5 s until the first request leaves, rounded up
    });

    // A millisecond before the first request leaves the window it is still full; at that instant one slot frees.
    clock.set(new Date(T0.getTime() + 59_999));
    expect((await list(bearer(key))).status).toBe(429);
    clock.set(new Date(T0.getTime() + 60_000));
    const freed = await list(bearer(key));
    expect(freed.status).toBe(200);
    expect(limitHeaders(freed)).toMatchObject({ remaining: "0", reset: String(unix(T0.getTime() + 61_000)) });
    expect((await list(bearer(key))).status).toBe(429);
    // Each later second frees the slot of the request made a minute before it.
    clock.set(new Date(T0.getTime() + 61_000));
    expect((await list(bearer(key))).status).toBe(200);
    expect((await list(bearer(key))).status).toBe(429);
  });

  it("is one budget for all of a team's keys; the owner's dashboard session is metered apart", async () => {
    const { user, key } = await freeTeam("shared");
    clock.set(new Date(T0.getTime() - 3_600_000));
    const second = await mintApiKey(server, user, ["evaluations:read"]);
    clock.set(T0);
    const callers = [bearer(key), bearer(second)];
    for (let i = 0; i < 60; i++) expect((await list(callers[i % 2]!)).status).toBe(200);
    for (const headers of callers) {
      const res = await list(headers);
      expectError(res, 429, { type: "rate_limit_error", code: "rate_limit_exceeded" });
    }
    // The dashboard has a window of its own, at the same rate: the scripts' spent budget does not lock it out.
    const dashboard = await list(sessionHeaders(server, user));
    expect(dashboard.status).toBe(200);
    expect(limitHeaders(dashboard)).toMatchObject({ limit: "60", remaining: "59" });
    // Another team is not affected.
    const other = await freeTeam("other-team");
    expect((await list(bearer(other.key))).status).toBe(200);
  });

  it("carries the headers on error responses of a known caller, and counts them", async () => {
    const { key } = await freeTeam("errors");
    const notFound = await call(Evaluation, `${server.api}/evaluations/eval_nope`, { headers: bearer(key) });
    expectError(notFound, 404, { type: "not_found_error" });
    expect(limitHeaders(notFound)).toMatchObject({ limit: "60", remaining: "59" });
    const invalid = await call(Evaluation, `${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: {},
    });
    expectError(invalid, 400, { type: "invalid_request_error", code: "parameter_missing" });
    expect(limitHeaders(invalid)).toMatchObject({ limit: "60", remaining: "58" });
    const narrow = await mintApiKey(server, (await freeTeam("scoped")).user, ["templates:read"]);
    const forbidden = await list(bearer(narrow));
    expectError(forbidden, 403, { type: "authorization_error", code: "missing_required_scope" });
    expect(limitHeaders(forbidden).limit).toBe("60");
  });

  it("sends no rate-limit headers before the caller is known", async () => {
    const anonymous = await list({});
    expectError(anonymous, 401, { type: "authentication_error" });
    expect(limitHeaders(anonymous)).toEqual({ limit: null, remaining: null, reset: null, retryAfter: null });
    const badKey = await list(bearer("ak_live_nope"));
    expectError(badKey, 401, { type: "authentication_error" });
    expect(limitHeaders(badKey).limit).toBeNull();
    const { key } = await freeTeam("unknown-route");
    const unknown = await call(z.never(), `${server.api}/no/such/route`, { headers: bearer(key) });
    expectError(unknown, 404, { type: "not_found_error", code: "route_not_found" });
    expect(limitHeaders(unknown).limit).toBeNull();
  });

  it("does not meter whoami and usage, which still report the budget, even when it is spent", async () => {
    const { key } = await freeTeam("unmetered");
    for (let i = 0; i < 10; i++) {
      const whoami = await call(WhoAmI, `${server.api}/auth/whoami`, { headers: bearer(key) });
      expect(whoami.status).toBe(200);
      expect(limitHeaders(whoami)).toMatchObject({ limit: "60", remaining: "60" });
      const usage = await call(Usage, `${server.api}/usage`, { headers: bearer(key) });
      expect(usage.status).toBe(200);
      expect(limitHeaders(usage)).toMatchObject({ limit: "60", remaining: "60" });
    }
    for (let i = 0; i < 60; i++) await list(bearer(key));
    expect((await list(bearer(key))).status).toBe(429);
    const whoami = await call(WhoAmI, `${server.api}/auth/whoami`, { headers: bearer(key) });
    expect(whoami.status).toBe(200);
    expect(limitHeaders(whoami)).toMatchObject({ limit: "60", remaining: "0" });
    expect((await call(Usage, `${server.api}/usage`, { headers: bearer(key) })).status).toBe(200);
  });

  it("follows the plan: Team allows 120, and a plan switch applies at once", async () => {
    const { user, key } = await freeTeam("upgrade");
    for (let i = 0; i < 59; i++) await list(bearer(key));
    // The switch is made from the dashboard, whose window is its own.
    const switched = await call(Usage, `${server.api}/teams/${user.teamId}/plan`, {
      method: "POST",
      headers: sessionHeaders(server, user),
      body: { plan: "team" },
    });
    expectStatus(switched, 200);
    expect(limitHeaders(switched)).toMatchObject({ limit: "60", remaining: "59" });
    expect(switched.body.limits.rpm).toBe(120);
    // The key's 59 requests now count against 120.
    for (let i = 0; i < 60; i++) expect((await list(bearer(key))).status).toBe(200);
    const last = await list(bearer(key));
    expect(last.status).toBe(200);
    expect(limitHeaders(last)).toMatchObject({ limit: "120", remaining: "0" });
    expect((await list(bearer(key))).status).toBe(429);
  });

  it("uses an Enterprise team's custom per-minute limit", async () => {
    const user = await signUp(server, "enterprise", { plan: "enterprise" });
    await setTeamLimits(core(), user.teamId, { requestsPerMinute: 3 });
    clock.set(new Date(T0.getTime() - 86_400_000));
    const key = await mintApiKey(server, user, ["*"]);
    clock.set(T0);
    for (let i = 0; i < 3; i++) expect((await list(bearer(key))).status).toBe(200);
    const refused = await list(bearer(key));
    expectError(refused, 429, { type: "rate_limit_error", code: "rate_limit_exceeded" });
    expect(limitHeaders(refused)).toMatchObject({ limit: "3", retryAfter: "60" });
  });

  it("meters a user's session against their personal team, even when acting on another team", async () => {
    clock.set(new Date(T0.getTime() - 2 * 86_400_000));
    const owner = await signUp(server, "multi", { plan: "free" });
    clock.set(new Date(T0.getTime() - 86_400_000));
    const created = await call(Team, `${server.api}/teams`, {
      method: "POST",
      headers: sessionHeaders(server, owner),
      body: { name: "Second team" },
    });
    expectStatus(created, 201);
    await setTeamPlan(core(), created.body.id, "pro");
    clock.set(T0);
    const onSecond = await call(EvaluationList, `${server.api}/evaluations?teamId=${created.body.id}`, {
      headers: sessionHeaders(server, owner),
    });
    expect(onSecond.status).toBe(200);
    expect(limitHeaders(onSecond)).toMatchObject({ limit: "60", remaining: "59" });
  });
});

describe("log mode", () => {
  let logged: TestServer;
  beforeAll(async () => {
    logged = await startTestServer({ clock, env: { RATE_LIMIT_MODE: "log" } });
  });
  afterAll(() => logged?.close());

  it("serves over-limit requests and logs each with team, route and request id", async () => {
    const user = await signUp(logged, "log-mode", { plan: "free" });
    clock.set(new Date(T0.getTime() - 86_400_000));
    const key = await mintApiKey(logged, user, ["*"]);
    clock.set(T0);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      for (let i = 0; i < 60; i++)
        await call(EvaluationList, `${logged.api}/evaluations`, { headers: bearer(key) });
      expect(warn).not.toHaveBeenCalled();
      const over = await call(EvaluationList, `${logged.api}/evaluations`, { headers: bearer(key) });
      expect(over.status).toBe(200);
      expect(limitHeaders(over)).toMatchObject({ limit: "60", remaining: "0", retryAfter: null });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(JSON.parse(String(warn.mock.calls[0]![0]))).toMatchObject({
        msg: "limit_exceeded",
        limit: "rpm",
        mode: "log",
        team: user.teamId,
        user: user.userId,
        route: "GET /evaluations",
        request_id: over.headers.get("x-request-id"),
        max: 60,
      });
    } finally {
      warn.mockRestore();
    }
  });
});
