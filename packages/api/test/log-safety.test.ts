import { Writable } from "node:stream";
import { newId, users } from "@rubricon/db";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configureLogging, log } from "../src/observability/logger";
import { routeConsoleTo, safeErrorMessage } from "../src/observability/safe-error";

/**
 * A failing statement's error carries its values (Drizzle's message lists them, postgres.js keeps them, Postgres's
 * detail quotes the row). Its log lines, whether logged by the app or printed by a library through `console`, are
 * JSON that names the statement and the SQLSTATE and holds none of the values.
 */
let database: TestDatabase;
const lines: string[] = [];
const original = { ...console };

beforeAll(async () => {
  database = await createTestDatabase();
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  const logger = configureLogging({ logLevel: "info", logFormat: "json" }, "test", sink);
  routeConsoleTo(logger);
}, 60_000);

afterAll(async () => {
  Object.assign(console, original);
  await database?.dispose();
});

describe("database errors in the log", () => {
  it("name the statement and the code, never the values", async () => {
    const email = `secret-person-${Date.now()}@example.com`;
    const name = "Share token tok_9f8e7d6c5b4a3928171605f4e3d2c1b0";
    await database.db.insert(users).values({ id: newId("user"), email, name });
    let failure: unknown;
    try {
      await database.db.insert(users).values({ id: newId("user"), email, name });
    } catch (err) {
      failure = err;
    }
    expect(failure).toBeInstanceOf(Error);
    // What the raw error holds, so the assertions below could fail.
    expect(String((failure as Error).message)).toContain(email);

    log().error({ err: failure }, `POST /teams failed: ${safeErrorMessage(failure)}`);
    console.error("a library reports:", failure);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) {
      const parsed = JSON.parse(line) as { err?: Record<string, unknown> };
      expect(line).not.toContain(email);
      expect(line).not.toContain("tok_9f8e7d6c5b4a3928171605f4e3d2c1b0");
      expect(line).not.toContain("params");
      expect(parsed.err).toMatchObject({ statement: "INSERT users", code: "23505" });
    }
    expect(lines[0]).toContain("database error SQLSTATE 23505 in INSERT users");
  });
});
