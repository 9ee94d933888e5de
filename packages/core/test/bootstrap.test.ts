import { apiKeys, teamMembers, teams } from "@rubricon/db";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authenticateApiKey,
  bootstrapAccount,
  type CoreContext,
  createUser,
  parseScopeList,
  setTeamLimits,
  setTeamPlan,
  systemClock,
} from "../src/index";

let database: TestDatabase;
let ctx: CoreContext;

beforeAll(async () => {
  database = await createTestDatabase();
  ctx = { db: database.db, clock: systemClock, baseUrl: "http://localhost" };
});
afterAll(async () => {
  await database.dispose();
});

describe("bootstrapAccount", () => {
  it("creates a user, a team and a working key, and reuses them on a second run", async () => {
    const input = {
      email: "Ops@Example.com",
      password: "password123",
      teamName: "Acme",
      plan: "pro" as const,
      scopes: parseScopeList("*"),
    };
    const first = await bootstrapAccount(ctx, input);
    expect(first).toMatchObject({ createdUser: true, createdTeam: true });
    const key = await authenticateApiKey(ctx.db, first.apiKey, new Date());
    expect(key).toMatchObject({
      teamId: first.teamId,
      userId: first.userId,
      scopes: ["*"],
    });
    const [stored] = await ctx.db.select({ name: apiKeys.name }).from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(stored?.name).toBe("bootstrap");
    const [team] = await ctx.db.select().from(teams).where(eq(teams.id, first.teamId));
    expect(team).toMatchObject({ name: "Acme", plan: "pro" });

    const second = await bootstrapAccount(ctx, {
      ...input,
      email: "ops@example.com",
      password: undefined,
      plan: "enterprise",
    });
    expect(second).toMatchObject({
      userId: first.userId,
      teamId: first.teamId,
      createdUser: false,
      createdTeam: false,
    });
    expect(second.apiKey).not.toBe(first.apiKey);
    const [after] = await ctx.db.select().from(teams).where(eq(teams.id, first.teamId));
    expect(after?.plan).toBe("enterprise");
  });

  it("joins an existing team of that name as a member", async () => {
    const owner = await createUser(ctx, {
      email: "owner@example.com",
      password: "password123",
    });
    const existing = await bootstrapAccount(ctx, {
      email: "owner@example.com",
      teamName: "Shared",
      plan: "team",
      scopes: ["evaluations:read"],
    });
    expect(existing.userId).toBe(owner.user.id);
    const joined = await bootstrapAccount(ctx, {
      email: "new@example.com",
      password: "password123",
      teamName: "Shared",
      plan: "team",
      scopes: ["*"],
    });
    expect(joined.teamId).toBe(existing.teamId);
    const roles = await ctx.db.select().from(teamMembers).where(eq(teamMembers.teamId, existing.teamId));
    expect(roles.map((r) => r.role).sort()).toEqual(["member", "owner"]);
  });

  it("rejects unknown scopes and new users without a password", async () => {
    expect(() => parseScopeList("evaluations:read, nope")).toThrow(/Unknown scope 'nope'/);
    expect(parseScopeList("evaluations:read evaluations:write,evaluations:read")).toEqual([
      "evaluations:read",
      "evaluations:write",
    ]);
    await expect(
      bootstrapAccount(ctx, {
        email: "nopw@example.com",
        teamName: "X",
        plan: "free",
        scopes: ["*"],
      }),
    ).rejects.toThrow(/password/);
  });
});

describe("setTeamPlan and setTeamLimits", () => {
  it("change a team and answer team_not_found for an unknown one", async () => {
    const { teamId } = await bootstrapAccount(ctx, {
      email: "plan@example.com",
      password: "password123",
      teamName: "Plans",
      plan: "free",
      scopes: ["*"],
    });
    expect(await setTeamPlan(ctx, teamId, "enterprise")).toEqual({
      teamId,
      plan: "enterprise",
    });
    await expect(setTeamPlan(ctx, "team_missing", "pro")).rejects.toMatchObject({ code: "team_not_found" });

    const limits = await setTeamLimits(ctx, teamId, {
      requestsPerMinute: 600,
      evaluations: 50,
    });
    expect(limits.customLimits).toEqual({
      requestsPerMinute: 600,
      evaluations: 50,
    });
    const merged = await setTeamLimits(ctx, teamId, {
      evaluations: null,
      humanRatingsPerMonth: 1000,
    });
    expect(merged.customLimits).toEqual({
      requestsPerMinute: 600,
      humanRatingsPerMonth: 1000,
    });
    await expect(setTeamLimits(ctx, teamId, { requestsPerMinute: -1 })).rejects.toThrow(/non-negative/);
    await expect(setTeamLimits(ctx, "team_missing", { requestsPerMinute: 1 })).rejects.toMatchObject({
      code: "team_not_found",
    });
  });
});
