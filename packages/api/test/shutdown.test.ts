import { Agent, request } from "node:http";
import { bootstrapAccount, setPasswordHashCost, systemClock } from "@rubricon/core";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SSE_BODY } from "./helpers/assertions";
import { insertAutouser } from "./helpers/autousers";
import { freePort, SERVER_MAIN, startProcess } from "./helpers/process";
import { TEST_SECRETS, type TestServer } from "./helpers/server";

/**
 * SIGTERM to the web process under load: the listener closes, keep-alive connections get `Connection: close` on
 * their next answer, requests in flight finish, open event streams end with a `retry` hint, and it exits 0. The
 * only failures a client may see are refused new connections (the request was never sent), never a request cut
 * after it was sent.
 */
const PG = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
let database: TestDatabase;
let apiKey: string;
let autouserId: string;

beforeAll(async () => {
  database = await createTestDatabase({ ...process.env, DATABASE_URL: PG });
  setPasswordHashCost(12);
  autouserId = await insertAutouser({ database } as unknown as TestServer, null);
  ({ apiKey } = await bootstrapAccount(
    { db: database.db, clock: systemClock, baseUrl: "http://127.0.0.1" },
    {
      email: "drain@example.com",
      password: "correct horse battery",
      teamName: "Drain",
      plan: "enterprise",
      scopes: ["*"],
    },
  ));
});
afterAll(() => database?.dispose());

interface Outcome {
  status?: number;
  connection?: string;
  error?: string;
  afterSignal: boolean;
}

function get(agent: Agent, url: string, signalled: () => boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(url, { agent, headers: { Authorization: `Bearer ${apiKey}` } }, (res) => {
      res.resume();
      res.on("end", () =>
        resolve({ status: res.statusCode, connection: res.headers.connection, afterSignal: signalled() }),
      );
      res.on("error", (err) =>
        resolve({ error: (err as NodeJS.ErrnoException).code ?? err.message, afterSignal: signalled() }),
      );
    });
    req.on("error", (err) =>
      resolve({ error: (err as NodeJS.ErrnoException).code ?? err.message, afterSignal: signalled() }),
    );
    req.end();
  });
}

describe("SIGTERM to the web process", () => {
  it("drains 32 keep-alive connections under load without cutting a request", async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = startProcess(SERVER_MAIN, {
      ...TEST_SECRETS,
      NODE_ENV: "test",
      PORT: String(port),
      BASE_URL: base,
      DATABASE_URL: database.url!,
      DATA_DIR: "/tmp/rubricon-test-data",
      EMBEDDED_WORKER: "false",
      SHUTDOWN_TIMEOUT_MS: "15000",
      RATE_LIMIT_MODE: "log",
    });
    await proc.waitFor("Rubricon ready", 90_000);

    // Runs stay queued (no worker here), so the evaluation's status stream stays open until the server ends it.
    const json = { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" };
    const created = await fetch(`${base}/api/v1/evaluations`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({
        ...SSE_BODY,
        evaluationMethod: "both",
        selectedAutousers: [{ autouserId, agentCount: 1 }],
      }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const running = await fetch(`${base}/api/v1/evaluations/${id}`, {
      method: "PATCH",
      headers: json,
      body: JSON.stringify({ status: "Running" }),
    });
    expect(running.status).toBe(200);
    const stream = await fetch(`${base}/api/v1/evaluations/${id}/autouser-stream`, {
      headers: { Authorization: `Bearer ${apiKey}` },
    });
    expect(stream.status).toBe(200);
    const streamText = stream.text();

    const agent = new Agent({ keepAlive: true, maxSockets: 32 });
    let signalled = false;
    const outcomes: Outcome[] = [];
    const loop = async () => {
      for (;;) {
        const outcome = await get(agent, `${base}/api/v1/evaluations?limit=5`, () => signalled);
        outcomes.push(outcome);
        if (outcome.error) return;
      }
    };
    const loops = Array.from({ length: 32 }, loop);
    while (outcomes.length < 300) await new Promise((r) => setTimeout(r, 20));
    signalled = true;
    proc.child.kill("SIGTERM");
    await Promise.all(loops);
    agent.destroy();

    expect(await proc.exited).toBe(0);
    const errors = outcomes.filter((o) => o.error);
    const answered = outcomes.filter((o) => o.status !== undefined);
    // Every loop ends on a refused connection: the listener is gone, nothing sent was lost.
    expect(errors).toHaveLength(32);
    expect(new Set(errors.map((e) => e.error))).toEqual(new Set(["ECONNREFUSED"]));
    expect(answered.every((o) => o.status === 200)).toBe(true);
    const late = answered.filter((o) => o.afterSignal);
    expect(late.length).toBeGreaterThan(0);
    expect(late.filter((o) => o.connection === "close").length).toBeGreaterThan(0);
    // The open stream was ended by the server with a reconnect hint.
    expect(await streamText).toMatch(/\nretry: \d+\n\n$|^retry: \d+\n\n$/m);
    const log = proc.stdout();
    expect(log).toContain("shutdown: SIGTERM received");
    // Requests were in flight when the signal came (the stream is one of them).
    const inFlight = Number(/"inFlight":(\d+)[^\n]*finishing requests in flight/.exec(log)?.[1]);
    expect(inFlight).toBeGreaterThan(1);
    expect(log).toContain("shutdown: ended event streams with a retry hint");
    expect(log).toContain("shutdown: drained");
  }, 180_000);
});
