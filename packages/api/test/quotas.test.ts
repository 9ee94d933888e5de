import { EvaluationCreateResult, Rating, Usage } from "@rubricon/contracts";
import { billingPeriod, fixedClock } from "@rubricon/core";
import { evaluations, usageCounters } from "@rubricon/db";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { expectError, expectStatus, SSE_BODY } from "./helpers/assertions";
import { bearer, call, mintApiKey, signUp } from "./helpers/clients";
import { runningEvaluation, shareRate, startPublicRater } from "./helpers/ratings";
import { startTestServer, type TestServer } from "./helpers/server";

const T0 = new Date("2026-11-22T10:00:00.000Z");
const clock = fixedClock(T0);
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(() => server?.close());
afterEach(() => clock.set(T0));

async function teamKey(target: TestServer, label: string, plan: "free" | "team" | "pro" = "free") {
  const user = await signUp(target, label, { plan });
  return { user, key: await mintApiKey(target, user, ["*"]) };
}

const create = (target: TestServer, key: string, body: Record<string, unknown> = SSE_BODY) =>
  call(EvaluationCreateResult, `${target.api}/evaluations`, { method: "POST", headers: bearer(key), body });
const usage = async (target: TestServer, key: string) => {
  const res = await call(Usage, `${target.api}/usage`, { headers: bearer(key) });
  expectStatus(res, 200);
  return res.body;
};
const stored = (teamId: string) =>
  server.database.db.select({ id: evaluations.id }).from(evaluations).where(eq(evaluations.teamId, teamId));

describe("monthly evaluation quota", () => {
  it("lets exactly 5 of 12 concurrent creates through on Free; the rest get 429 quota_exceeded without Retry-After", async () => {
    const { user, key } = await teamKey(server, "concurrent");
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => create(server, key, { ...SSE_BODY, name: `E${i}` })),
    );
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 429);
    expect(created).toHaveLength(5);
    expect(refused).toHaveLength(7);
    for (const res of refused) {
      expectError(res, 429, { type: "rate_limit_error", code: "quota_exceeded" });
      expect(res.headers.get("retry-after")).toBeNull();
      expect(res.headers.get("x-ratelimit-limit")).toBe("60");
      expect(res.body.error.message).toMatch(/5 evaluations .* renews on 2026-12-01T00:00:00\.000Z/);
    }
    expect(await stored(user.teamId)).toHaveLength(5);
    expect(await usage(server, key)).toMatchObject({
      plan: "free",
      limits: { evals_mo: 5 },
      used: { evals_mo: 5 },
      remaining: { evals_mo: 0 },
    });
  });

  it("does not count a dry run, which still answers when the quota is used up", async () => {
    const { key } = await teamKey(server, "dry");
    const dry = { ...SSE_BODY, dryRun: true };
    for (let i = 0; i < 3; i++) expect((await create(server, key, dry)).status).toBe(200);
    expect((await usage(server, key)).used.evals_mo).toBe(0);
    for (let i = 0; i < 5; i++) expect((await create(server, key)).status).toBe(201);
    expect((await create(server, key, dry)).status).toBe(200);
    expectError(await create(server, key), 429, { type: "rate_limit_error", code: "quota_exceeded" });
  });

  it("does not count a create that fails validation", async () => {
    const { key } = await teamKey(server, "invalid");
    const bad = await create(server, key, { ...SSE_BODY, selectedDimensionIds: ["no-such-template"] });
    expect(bad.status).toBe(400);
    expect((await usage(server, key)).used.evals_mo).toBe(0);
  });

  it("renews with the next calendar month (UTC)", async () => {
    const { key } = await teamKey(server, "renew");
    clock.set(new Date("2026-11-30T23:59:59.000Z"));
    for (let i = 0; i < 5; i++) expect((await create(server, key)).status).toBe(201);
    expect((await create(server, key)).status).toBe(429);
    clock.set(new Date("2026-12-01T00:00:00.000Z"));
    expect((await create(server, key)).status).toBe(201);
    expect(await usage(server, key)).toMatchObject({
      period: { start: "2026-12-01T00:00:00.000Z", end: "2027-01-01T00:00:00.000Z" },
      used: { evals_mo: 1 },
      remaining: { evals_mo: 4 },
    });
  });

  it("has no evaluation quota on Pro: -1 for unlimited", async () => {
    const { key } = await teamKey(server, "pro", "pro");
    for (let i = 0; i < 8; i++) expect((await create(server, key)).status).toBe(201);
    expect(await usage(server, key)).toMatchObject({
      plan: "pro",
      limits: { rpm: 600, autouser_ratings_mo: 2000, human_ratings_mo: 20000, evals_mo: -1 },
      used: { evals_mo: 8 },
      remaining: { evals_mo: -1 },
    });
  });
});

describe("monthly human rating quota", () => {
  it("takes concurrent ratings exactly up to the quota, on the connections' shards far from it and exactly near it", async () => {
    // Pro: 20,000 human ratings a month, and a rate limit the burst stays under.
    const { user, key } = await teamKey(server, "rating-quota", "pro");
    const quota = 20_000;
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      extra: { allowMultipleRatings: true },
    });
    // A rating is counted on its connection's shard while the total it reads plus every transaction that could
    // be open at once stays within the quota; past that, every shard is held and counted exactly.
    const answer = (await server.database.db.execute(
      sql`select current_setting('max_connections')::int + current_setting('max_prepared_transactions')::int as open`,
    )) as unknown as { open: number }[] | { rows: { open: number }[] };
    const open = Number((Array.isArray(answer) ? answer : answer.rows)[0]!.open);
    const used = quota - open - 3;
    await server.database.db.insert(usageCounters).values({
      teamId: user.teamId,
      periodStart: billingPeriod(T0).start,
      metric: "human_ratings_mo",
      count: used,
    });
    const left = quota - used;
    const results = await Promise.all(
      Array.from({ length: left + 7 }, () =>
        call(Rating, `${server.api}/evaluations/${evaluation.id}/ratings`, {
          method: "POST",
          headers: bearer(key),
          body: { comparisonId: comparisonIds[0], dimensionRatings: { overall: 4 } },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(left);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(7);
    for (const res of refused) expectError(res, 429, { type: "rate_limit_error", code: "quota_exceeded" });
    const counters = await server.database.db
      .select()
      .from(usageCounters)
      .where(and(eq(usageCounters.teamId, user.teamId), eq(usageCounters.metric, "human_ratings_mo")));
    expect(counters.reduce((n, c) => n + c.count, 0)).toBe(quota);
    // Both ways were taken: some ratings landed on connection shards, the last ones on shard 0.
    expect(counters.filter((c) => c.shard !== 0 && c.count > 0).length).toBeGreaterThan(0);
    expect(await usage(server, key)).toMatchObject({
      used: { human_ratings_mo: quota },
      remaining: { human_ratings_mo: 0 },
    });
  });
});

describe("quotas in log mode", () => {
  let logged: TestServer;
  beforeAll(async () => {
    logged = await startTestServer({ clock, env: { RATE_LIMIT_MODE: "log" } });
  });
  afterAll(() => logged?.close());

  it("serves work past the quota, counts it and logs it with team, route and request id", async () => {
    const { user, key } = await teamKey(logged, "log-quota");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      for (let i = 0; i < 5; i++) expect((await create(logged, key)).status).toBe(201);
      expect(warn).not.toHaveBeenCalled();
      const over = await create(logged, key);
      expect(over.status).toBe(201);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(JSON.parse(String(warn.mock.calls[0]![0]))).toMatchObject({
        msg: "limit_exceeded",
        limit: "quota",
        name: "evals_mo",
        max: 5,
        mode: "log",
        team: user.teamId,
        route: "POST /evaluations",
        request_id: over.headers.get("x-request-id"),
      });
    } finally {
      warn.mockRestore();
    }
    expect(await usage(logged, key)).toMatchObject({ used: { evals_mo: 6 }, remaining: { evals_mo: 0 } });
  });

  it("serves a share-link rating past the human quota and logs it by route, without the link's token", async () => {
    const { user, key } = await teamKey(logged, "log-share");
    const { evaluation, comparisonIds } = await runningEvaluation(logged, bearer(key), {
      extra: { shareAccess: "ANYONE_WITH_LINK" },
    });
    // The team has used its whole month of human ratings (250 on Free).
    await logged.database.db.insert(usageCounters).values({
      teamId: user.teamId,
      periodStart: billingPeriod(T0).start,
      metric: "human_ratings_mo",
      count: 250,
    });
    const rater = await startPublicRater(logged, evaluation.shareToken);
    expect(rater.status).toBe(201);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const rated = await shareRate(logged, evaluation.shareToken, rater.cookie, {
        comparisonId: comparisonIds[0],
        dimensionRatings: { overall: 4 },
      });
      expectStatus(rated, 201);
      expect(warn).toHaveBeenCalledTimes(1);
      const line = String(warn.mock.calls[0]![0]);
      expect(JSON.parse(line)).toMatchObject({
        msg: "limit_exceeded",
        limit: "quota",
        name: "human_ratings_mo",
        max: 250,
        mode: "log",
        team: user.teamId,
        route: "POST /api/share/{token}/ratings",
        request_id: rated.headers.get("x-request-id"),
      });
      expect(line).not.toContain(evaluation.shareToken);
    } finally {
      warn.mockRestore();
    }
    expect(await usage(logged, key)).toMatchObject({ used: { human_ratings_mo: 251 } });
  });
});
