/** What the results tests share: a team on its own database, a running evaluation to rate, and a comparison of figures to 1e-9. */
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { expect } from "vitest";
import { bootstrapAccount, type CoreContext, createEvaluation, systemClock } from "../src/index";

export type StatsActor = { userId: string; boundTeamId: string; principal: "api_key" };

/** A fresh database with one enterprise team, and an API-key actor bound to it. */
export async function statsTeam(
  name: string,
): Promise<{ database: TestDatabase; ctx: CoreContext; teamId: string; actor: StatsActor }> {
  const database = await createTestDatabase();
  const ctx: CoreContext = { db: database.db, clock: systemClock, baseUrl: "http://localhost" };
  const slug = name.toLowerCase().replace(/\s+/g, "-");
  const account = await bootstrapAccount(ctx, {
    email: `${slug}@example.com`,
    password: `${slug}-password`,
    teamName: name,
    plan: "enterprise",
    scopes: ["*"],
  });
  const actor: StatsActor = { userId: account.userId, boundTeamId: account.teamId, principal: "api_key" };
  return { database, ctx, teamId: account.teamId, actor };
}

export async function runningEvaluation(
  ctx: CoreContext,
  actor: Parameters<typeof createEvaluation>[1],
  name: string,
  type: "SSE" | "SxS",
  templates: string[],
): Promise<string> {
  const created = await createEvaluation(ctx, actor, {
    name,
    type,
    status: "Running",
    shareAccess: "TEAM_ONLY",
    allowMultipleRatings: true,
    collectRaterName: false,
    collectRaterEmail: false,
    evaluationMethod: "manual",
    dryRun: false,
    selectedDimensionIds: templates,
  } as Parameters<typeof createEvaluation>[2]);
  if ("dryRun" in created) throw new Error("unexpected dry run");
  return created.id;
}

/** Every number equal within 1e-9, everything else equal. */
export function expectClose(actual: unknown, expected: unknown, path = "$"): void {
  if (typeof expected === "number" && typeof actual === "number") {
    if (Math.abs(actual - expected) > 1e-9) throw new Error(`${path}: ${actual} is not ${expected}`);
    return;
  }
  if (expected === null || typeof expected !== "object") {
    expect(actual, path).toEqual(expected);
    return;
  }
  expect(typeof actual, path).toBe("object");
  expect(actual, path).not.toBeNull();
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual), path).toBe(true);
    expect((actual as unknown[]).length, path).toBe(expected.length);
    for (const [i, e] of expected.entries()) expectClose((actual as unknown[])[i], e, `${path}[${i}]`);
    return;
  }
  expect(Object.keys(actual as object).sort(), path).toEqual(Object.keys(expected).sort());
  for (const [k, e] of Object.entries(expected))
    expectClose((actual as Record<string, unknown>)[k], e, `${path}.${k}`);
}
