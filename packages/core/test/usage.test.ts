import { newId, teams, usageCounters } from "@rubricon/db";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  ApiError,
  billingPeriod,
  type CoreContext,
  countAhead,
  type LimitPolicy,
  limitsFor,
  quotaRemaining,
  readTotalAhead,
  recordUsage,
  setTeamLimits,
  systemClock,
  teamPlan,
  teamUsage,
  UsageNearLimit,
} from "../src/index";

let database: TestDatabase;
let ctx: CoreContext;
const NOW = new Date("2026-11-22T10:00:00.000Z");

beforeAll(async () => {
  database = await createTestDatabase();
  ctx = { db: database.db, clock: systemClock, baseUrl: "http://localhost" };
});
afterAll(() => database?.dispose());

async function team(plan: "free" | "team" | "pro" | "enterprise"): Promise<string> {
  const id = newId("team");
  await database.db.insert(teams).values({ id, name: `Usage ${plan}`, plan });
  return id;
}

const record = (teamId: string, amount = 1, metric = "autouser_ratings_mo" as const, policy?: LimitPolicy) =>
  database.db.transaction((tx) => recordUsage(tx, teamId, metric, NOW, amount, { policy }));

describe("limitsFor", () => {
  it("gives each plan the contract's limits, null for unlimited", () => {
    expect(limitsFor({ plan: "free", customLimits: null })).toEqual({
      rpm: 60,
      autouser_ratings_mo: 50,
      human_ratings_mo: 250,
      evals_mo: 5,
    });
    expect(limitsFor({ plan: "team", customLimits: null })).toEqual({
      rpm: 120,
      autouser_ratings_mo: 500,
      human_ratings_mo: 5000,
      evals_mo: 100,
    });
    expect(limitsFor({ plan: "pro", customLimits: null }).evals_mo).toBeNull();
  });

  it("applies an operator's custom limits on Enterprise only", () => {
    const customLimits = { requestsPerMinute: 5000, humanRatingsPerMonth: 1_000_000 };
    expect(limitsFor({ plan: "enterprise", customLimits })).toEqual({
      rpm: 5000,
      autouser_ratings_mo: 2000,
      human_ratings_mo: 1_000_000,
      evals_mo: null,
    });
    expect(limitsFor({ plan: "pro", customLimits }).rpm).toBe(600);
    expect(limitsFor({ plan: "enterprise", customLimits: { evaluations: 40 } }).evals_mo).toBe(40);
  });
});

describe("billingPeriod", () => {
  it("is the calendar month in UTC, end exclusive", () => {
    expect(billingPeriod(new Date("2026-12-31T23:59:59.999Z"))).toEqual({
      start: new Date("2026-12-01T00:00:00.000Z"),
      end: new Date("2027-01-01T00:00:00.000Z"),
    });
  });
});

describe("recordUsage", () => {
  it("never issues past the quota under concurrent transactions", async () => {
    const id = await team("free");
    const outcomes = await Promise.allSettled(Array.from({ length: 70 }, () => record(id)));
    const ok = outcomes.filter((o) => o.status === "fulfilled");
    const refused = outcomes.filter((o) => o.status === "rejected");
    expect(ok).toHaveLength(50);
    expect(refused).toHaveLength(20);
    for (const r of refused)
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: "quota_exceeded" });
    expect((await teamUsage(database.db, id, NOW)).used.autouser_ratings_mo).toBe(50);
  });

  it("counts one-by-one increments on shards exactly up to the quota, each way", async () => {
    const id = await team("free");
    // As a rating counts: on the connection's shard, again with every shard held when the quota is near.
    const spread = (way: "fast" | "exact"): Promise<number> =>
      database.db
        .transaction((tx) => recordUsage(tx, id, "human_ratings_mo", NOW, 1, { spread: way }))
        .catch((err: unknown) => {
          if (err instanceof UsageNearLimit) return spread("exact");
          throw err;
        });
    const outcomes = await Promise.allSettled(Array.from({ length: 270 }, () => spread("fast")));
    const refused = outcomes.filter((o) => o.status === "rejected");
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(250);
    expect(refused).toHaveLength(20);
    for (const r of refused)
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: "quota_exceeded" });
    expect((await teamUsage(database.db, id, NOW)).used.human_ratings_mo).toBe(250);
    const rows = await database.db.select().from(usageCounters).where(eq(usageCounters.teamId, id));
    // Far from the quota (more left than the server's possible open transactions) on the connections' shards,
    // near it on shard 0.
    expect(rows.filter((r) => r.shard > 0).reduce((n, r) => n + r.count, 0)).toBeGreaterThan(0);
    expect(rows.find((r) => r.shard === 0)?.count ?? 0).toBeGreaterThan(0);
  });

  it("answers a spread count with its own increment in the total (read after the shard's bump)", async () => {
    const id = await team("enterprise");
    const customLimits = { humanRatingsPerMonth: 1_000_000 };
    await setTeamLimits(ctx, id, customLimits);
    const spread = (who: Parameters<typeof recordUsage>[1]) =>
      database.db.transaction((tx) => recordUsage(tx, who, "human_ratings_mo", NOW, 1, { spread: "fast" }));
    expect(await spread(id)).toBe(1);
    expect(await spread(id)).toBe(2);
    // As a rating counts: the plan already read, so the bump and the total leave at once.
    expect(await spread({ id, plan: "enterprise", customLimits })).toBe(3);
    const rows = await database.db.select().from(usageCounters).where(eq(usageCounters.teamId, id));
    expect(rows.every((r) => r.shard > 0)).toBe(true);
  });

  it("counts ahead on a total read earlier in the transaction, and goes the exact way before sending anything near the quota", async () => {
    const id = await team("free");
    const plan = await teamPlan(database.db, id);
    // As a rating counts when its increment leaves with the commit: the total read with the first statements.
    const ahead = () =>
      database.db.transaction(async (tx) => {
        const read = await readTotalAhead(tx, id, "human_ratings_mo", NOW);
        return countAhead({ id, ...plan }, read, NOW)(tx);
      });
    expect(await ahead()).toBe(1);
    expect(await ahead()).toBe(2);
    const rows = await database.db.select().from(usageCounters).where(eq(usageCounters.teamId, id));
    expect(rows.every((r) => r.shard > 0)).toBe(true);
    // Fill up to where the transactions that could be open at once would pass the free plan's 250.
    const { open } = await database.db.transaction((tx) => readTotalAhead(tx, id, "human_ratings_mo", NOW));
    await database.db.insert(usageCounters).values({
      teamId: id,
      periodStart: billingPeriod(NOW).start,
      metric: "human_ratings_mo",
      count: 249 - open,
    });
    await expect(ahead()).rejects.toBeInstanceOf(UsageNearLimit);
    expect((await teamUsage(database.db, id, NOW)).used.human_ratings_mo).toBe(251 - open);
  });

  it("refuses a batch that does not fit whole, and counts one that does", async () => {
    const id = await team("free");
    expect(await record(id, 45)).toBe(45);
    await expect(record(id, 6)).rejects.toMatchObject({ code: "quota_exceeded", status: 429 });
    await expect(record(id, 51)).rejects.toBeInstanceOf(ApiError);
    expect(await quotaRemaining(database.db, id, "autouser_ratings_mo", NOW)).toBe(5);
    expect(await record(id, 5)).toBe(50);
    expect(await quotaRemaining(database.db, id, "autouser_ratings_mo", NOW)).toBe(0);
  });

  it("rolls back with the work it counts", async () => {
    const id = await team("free");
    await expect(
      database.db.transaction(async (tx) => {
        await recordUsage(tx, id, "human_ratings_mo", NOW, 10);
        throw new Error("the rating insert failed");
      }),
    ).rejects.toThrow("the rating insert failed");
    expect((await teamUsage(database.db, id, NOW)).used.human_ratings_mo).toBe(0);
  });

  it("counts without limit where the plan has none", async () => {
    const id = await team("pro");
    expect(await database.db.transaction((tx) => recordUsage(tx, id, "evals_mo", NOW, 1000))).toBe(1000);
    expect(await quotaRemaining(database.db, id, "evals_mo", NOW)).toBeNull();
    expect((await teamUsage(database.db, id, NOW)).remaining.evals_mo).toBe(-1);
  });

  it("follows Enterprise custom limits", async () => {
    const id = await team("enterprise");
    await setTeamLimits(ctx, id, { autouserRatingsPerMonth: 3 });
    expect(await record(id, 3)).toBe(3);
    await expect(record(id)).rejects.toMatchObject({ code: "quota_exceeded" });
  });

  it("counts past the quota and logs under the log policy", async () => {
    const id = await team("free");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const policy = { mode: "log" as const, requestId: "req-1", route: "POST /x" };
      expect(await record(id, 51, "autouser_ratings_mo", policy)).toBe(51);
      expect(JSON.parse(String(warn.mock.calls[0]![0]))).toMatchObject({
        limit: "quota",
        name: "autouser_ratings_mo",
        team: id,
        route: "POST /x",
        request_id: "req-1",
        max: 50,
      });
    } finally {
      warn.mockRestore();
    }
    // Without a request's policy the quota is enforced.
    await expect(record(id)).rejects.toMatchObject({ code: "quota_exceeded" });
  });
});
