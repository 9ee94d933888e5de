import {
  events,
  idempotencyRecords,
  newId,
  publicRaters,
  sessions,
  teams,
  webhookDeliveries,
  webhookEndpoints,
} from "@rubricon/db";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation, createUser, IDEMPOTENCY_TTL_MS, runMaintenance, systemClock } from "../src/index";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.dispose();
});

describe("maintenance cleanup", () => {
  it("deletes idempotency records older than 24 h and expired sessions, and keeps the rest", async () => {
    const { db } = database;
    const now = new Date("2026-03-01T12:00:00Z");
    const ctx = { db, clock: systemClock, baseUrl: "http://localhost" };
    const { user } = await createUser(ctx, {
      email: "cleanup@example.com",
      password: "password123",
    });

    const record = (key: string, ageMs: number) => ({
      scope: "user:x",
      key,
      requestFingerprint: "f",
      state: "done" as const,
      createdAt: new Date(now.getTime() - ageMs),
    });
    await db
      .insert(idempotencyRecords)
      .values([record("old", IDEMPOTENCY_TTL_MS + 1000), record("fresh", IDEMPOTENCY_TTL_MS - 60_000)]);
    const session = (tokenHash: string, expiresAt: Date) => ({
      id: newId("session"),
      userId: user.id,
      tokenHash,
      createdAt: now,
      expiresAt,
    });
    await db
      .insert(sessions)
      .values([
        session("expired", new Date(now.getTime() - 1000)),
        session("live", new Date(now.getTime() + 60_000)),
      ]);

    expect(await runMaintenance(db, now)).toMatchObject({
      idempotencyRecords: 1,
      sessions: 1,
    });
    expect((await db.select().from(idempotencyRecords)).map((r) => r.key)).toEqual(["fresh"]);
    expect((await db.select().from(sessions)).map((r) => r.tokenHash)).toEqual(["live"]);
    // A second pass has nothing left to do.
    expect(await runMaintenance(db, now)).toEqual({
      idempotencyRecords: 0,
      sessions: 0,
      events: 0,
      webhookDeliveries: 0,
      idleRaters: 0,
    });
  });

  it("keeps events and settled deliveries for the team's plan's retention, and forgets idle public raters", async () => {
    const { db } = database;
    const now = new Date("2026-06-01T12:00:00Z");
    const ctx = { db, clock: systemClock, baseUrl: "http://localhost" };
    const free = await createUser(ctx, { email: "free@example.com", password: "password123" });
    const pro = await createUser(ctx, { email: "pro@example.com", password: "password123" });
    await db.update(teams).set({ plan: "pro" }).where(eq(teams.id, pro.teamId));
    const daysAgo = (d: number) => new Date(now.getTime() - d * 24 * 60 * 60 * 1000);
    const event = (teamId: string, id: string, age: number) => ({
      id,
      teamId,
      type: "rating.created",
      apiVersion: "2026-11-01",
      objectId: "rat_x",
      object: {},
      createdAt: daysAgo(age),
    });
    await db
      .insert(events)
      .values([
        event(free.teamId, "event_free_old", 31),
        event(free.teamId, "event_free_new", 29),
        event(pro.teamId, "event_pro_mid", 60),
        event(pro.teamId, "event_pro_old", 91),
        event(free.teamId, "event_free_waiting", 40),
      ]);
    const [endpoint] = await db
      .insert(webhookEndpoints)
      .values({
        id: newId("webhookEndpoint"),
        teamId: free.teamId,
        url: "https://example.com/hook",
        enabledEvents: ["*"],
        secretHash: "h",
        secretSealed: "s",
      })
      .returning();
    const delivery = (eventId: string, status: "delivered" | "pending", age: number) => ({
      id: newId("webhookDelivery"),
      endpointId: endpoint!.id,
      teamId: free.teamId,
      eventId,
      eventType: "rating.created",
      status,
      createdAt: daysAgo(age),
    });
    await db
      .insert(webhookDeliveries)
      .values([delivery("event_free_old", "delivered", 31), delivery("event_free_waiting", "pending", 40)]);

    const evaluation = await createEvaluation(
      ctx,
      { userId: free.user.id, boundTeamId: free.teamId, principal: "session" },
      {
        name: "Old link",
        type: "SSE",
        status: "Running",
        shareAccess: "ANYONE_WITH_LINK",
        allowMultipleRatings: false,
        collectRaterName: false,
        collectRaterEmail: false,
        evaluationMethod: "manual",
        dryRun: false,
        designUrls: [{ url: "https://example.com", stimulusType: "URL" }],
      },
    );
    const rater = (id: string, age: number) => ({
      id,
      evaluationId: (evaluation as { id: string }).id,
      tokenHash: id,
      createdAt: daysAgo(age),
    });
    await db.insert(publicRaters).values([rater("pr_idle_old", 31), rater("pr_idle_new", 5)]);

    const result = await runMaintenance(db, now);
    expect(result).toMatchObject({ events: 2, webhookDeliveries: 1, idleRaters: 1 });
    const kept = (await db.select({ id: events.id }).from(events)).map((e) => e.id);
    expect(kept.filter((id) => /^event_(free|pro)_/.test(id)).sort()).toEqual(
      ["event_free_new", "event_free_waiting", "event_pro_mid"].sort(),
    );
    const deliveries = (await db.select().from(webhookDeliveries)).filter((d) =>
      d.eventId.startsWith("event_free_"),
    );
    expect(deliveries.map((d) => [d.eventId, d.status])).toEqual([["event_free_waiting", "pending"]]);
    expect((await db.select({ id: publicRaters.id }).from(publicRaters)).map((r) => r.id)).toEqual([
      "pr_idle_new",
    ]);
  });
});
