import { idempotencyRecords, newId, sessions } from "@rubricon/db";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, IDEMPOTENCY_TTL_MS, runMaintenance, systemClock } from "../src/index";

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

    expect(await runMaintenance(db, now)).toEqual({
      idempotencyRecords: 1,
      sessions: 1,
    });
    expect((await db.select().from(idempotencyRecords)).map((r) => r.key)).toEqual(["fresh"]);
    expect((await db.select().from(sessions)).map((r) => r.tokenHash)).toEqual(["live"]);
    // A second pass has nothing left to do.
    expect(await runMaintenance(db, now)).toEqual({
      idempotencyRecords: 0,
      sessions: 0,
    });
  });
});
