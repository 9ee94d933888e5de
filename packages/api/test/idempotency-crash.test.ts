import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Evaluation } from "@rubricon/contracts";
import { fixedClock } from "@rubricon/core";
import { createDatabase, evaluations, idempotencyRecords, usageCounters } from "@rubricon/db";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CLAIM_LEASE_MS } from "../src/http/idempotency";
import { expectStatus, SSE_BODY } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

/**
 * An instance killed (SIGKILL) in the middle of a create with an Idempotency-Key: its transaction rolls back with
 * the connection, its claim is left in progress, and once the claim's lease has run out the client's retry on a
 * healthy instance does the work exactly once. Postgres only: two processes share the database.
 */
const HERE = dirname(fileURLToPath(import.meta.url));
let database: TestDatabase;
let healthy: TestServer;
const clock = fixedClock(new Date());
let user: TestUser;
let key: string;

beforeAll(async () => {
  database = await createTestDatabase({
    ...process.env,
    DATABASE_URL: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  });
  healthy = await startTestServer({ database, clock });
  user = await signUp(healthy, "crash");
  key = await mintApiKey(healthy, user, ["*"]);
});
afterAll(async () => {
  await healthy?.close();
  await database?.dispose();
});

function startDoomedInstance(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(HERE, "helpers/app-main.ts"), JSON.stringify({ databaseUrl: database.url })],
    { cwd: join(HERE, ".."), stdio: ["ignore", "pipe", "pipe"] },
  );
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`instance did not start:\n${output}`)), 90_000);
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening (\S+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url });
      }
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
  });
}

describe("an instance killed mid-request", () => {
  it("leaves no work behind, and the retry after the claim's lease creates the evaluation once", async () => {
    const doomed = await startDoomedInstance();
    // Hold the team's usage rows, so the doomed create stops inside its transaction, after its claim.
    await call(Evaluation, `${healthy.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: SSE_BODY,
    });
    const count = async () =>
      (await database.db.select().from(evaluations).where(eq(evaluations.teamId, user.teamId))).length;
    const before = await count();
    const blocker = createDatabase({ url: database.url!, maxConnections: 1 });
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    let locked!: () => void;
    const lockTaken = new Promise<void>((r) => {
      locked = r;
    });
    const holding = blocker.db.transaction(async (tx) => {
      await tx.select().from(usageCounters).where(eq(usageCounters.teamId, user.teamId)).for("update");
      locked();
      await released;
    });
    await lockTaken;
    const headers = { ...bearer(key), "Idempotency-Key": "crash-1" };
    const inFlight = fetch(`${doomed.url}/api/v1/evaluations`, {
      method: "POST",
      headers,
      body: JSON.stringify(SSE_BODY),
    }).catch(() => null);
    // Wait until the doomed request holds its claim, let it reach the held rows, then kill its process.
    for (let i = 0; i < 200; i++) {
      const claims = await database.db
        .select()
        .from(idempotencyRecords)
        .where(eq(idempotencyRecords.key, "crash-1"));
      if (claims.length > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 300));
    doomed.child.kill("SIGKILL");
    await new Promise((r) => doomed.child.once("exit", r));
    release();
    await holding;
    await blocker.close();
    await inFlight;
    const [claim] = await database.db
      .select()
      .from(idempotencyRecords)
      .where(eq(idempotencyRecords.key, "crash-1"));
    expect(claim?.state).toBe("in_progress");
    expect(await count()).toBe(before);

    // The client retries on the healthy instance once the lease has run out.
    clock.set(new Date(claim!.createdAt.getTime() + CLAIM_LEASE_MS + 1_000));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const retried = await call(Evaluation, `${healthy.api}/evaluations`, {
        method: "POST",
        headers,
        body: SSE_BODY,
      });
      expectStatus(retried, 201);
      expect(JSON.parse(String(warn.mock.calls[0]![0]))).toMatchObject({
        msg: "idempotency_claim_taken_over",
      });
      const again = await call(Evaluation, `${healthy.api}/evaluations`, {
        method: "POST",
        headers,
        body: SSE_BODY,
      });
      expect(bodyOf(again).id).toBe(retried.body.id);
    } finally {
      warn.mockRestore();
    }
    expect(await count()).toBe(before + 1);
  }, 240_000);
});
