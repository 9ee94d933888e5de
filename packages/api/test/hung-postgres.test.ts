import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildProcess, freePort, SERVER_MAIN, startProcess } from "./helpers/process";
import { TEST_SECRETS } from "./helpers/server";
import { TcpProxy } from "./helpers/tcp-proxy";

/**
 * The web process with Postgres behind a proxy that the test pauses (the server goes silent) and cuts (refuses
 * connections), as an operator's failover or network fault does: requests end with 503 `database_unavailable` and
 * `Retry-After` within the statement timeout instead of waiting for ever or failing as a 500; a stop answers the
 * requests still stuck with 503 before it exits.
 */
const PG = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

let database: TestDatabase;
let proxy: TcpProxy;
let bounded: ChildProcess;
let patient: ChildProcess;
let boundedUrl: string;
let patientUrl: string;
let key: string;

function start(port: number, extra: Record<string, string>): ChildProcess {
  return startProcess(SERVER_MAIN, {
    ...TEST_SECRETS,
    NODE_ENV: "test",
    DATABASE_URL: proxy.url(database.url!),
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: mkdtempSync(join(tmpdir(), "rubricon-hung-pg-")),
    EMBEDDED_WORKER: "false",
    ...extra,
  });
}

beforeAll(async () => {
  database = await createTestDatabase({ ...process.env, DATABASE_URL: PG });
  proxy = TcpProxy.to(database.url!);
  await proxy.listen();
  const [a, b] = [await freePort(), await freePort()];
  boundedUrl = `http://127.0.0.1:${a}`;
  patientUrl = `http://127.0.0.1:${b}`;
  bounded = start(a, { DATABASE_STATEMENT_TIMEOUT_MS: "2000", DATABASE_CONNECT_TIMEOUT_MS: "1000" });
  // Statements may wait a minute here: what answers its stuck requests is the stop.
  patient = start(b, { DATABASE_STATEMENT_TIMEOUT_MS: "60000", SHUTDOWN_TIMEOUT_MS: "2000" });
  await Promise.all([bounded.waitFor("Rubricon ready", 90_000), patient.waitFor("Rubricon ready", 90_000)]);

  const signUp = await fetch(`${boundedUrl}/api/auth/sign-up`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: boundedUrl },
    body: JSON.stringify({ email: `hung-pg-${a}@example.com`, password: "correct horse battery", name: "x" }),
  });
  expect(signUp.status).toBe(201);
  const cookie = signUp.headers.getSetCookie()[0]!.split(";")[0]!;
  const minted = await fetch(`${boundedUrl}/api/v1/api-keys`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: boundedUrl, Cookie: cookie },
    body: JSON.stringify({ name: "k", scopes: ["*"] }),
  });
  expect(minted.status).toBe(201);
  key = ((await minted.json()) as { key: string }).key;
}, 150_000);

afterAll(async () => {
  for (const p of [bounded, patient]) {
    if (p && p.child.exitCode === null) {
      p.child.kill("SIGTERM");
      await p.exited;
    }
  }
  await proxy?.close();
  await database?.dispose();
});

async function list(
  base: string,
): Promise<{ status: number; ms: number; retryAfter: string | null; body: { error?: unknown } }> {
  const started = Date.now();
  const res = await fetch(`${base}/api/v1/evaluations`, { headers: { Authorization: `Bearer ${key}` } });
  const body = await res.json();
  return { status: res.status, ms: Date.now() - started, retryAfter: res.headers.get("retry-after"), body };
}

async function untilOk(base: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await list(base)).status !== 200) {
    if (Date.now() > deadline) throw new Error("the API never recovered");
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("a hung or refusing Postgres", () => {
  it("hung: requests get 503 database_unavailable with Retry-After within the statement timeout", async () => {
    expect((await list(boundedUrl)).status).toBe(200);
    proxy.pause();
    try {
      const answers = await Promise.all([1, 2, 3].map(() => list(boundedUrl)));
      for (const r of answers) {
        expect(r.status).toBe(503);
        expect(r.body.error).toMatchObject({ type: "api_error", code: "database_unavailable" });
        expect(Number(r.retryAfter)).toBeGreaterThan(0);
        // The 2 s statement timeout plus the client's second of grace, and the request's own time.
        expect(r.ms).toBeLessThan(6_000);
      }
    } finally {
      await proxy.restore();
    }
    await untilOk(boundedUrl);
    // The failures are logged as JSON lines naming the cause, without the key or its hash (the look-up's value).
    const out = bounded.stdout();
    expect(out).toMatch(/database unavailable \(no answer within 3000 ms\)/);
    expect(out).not.toContain(key);
    expect(out).not.toContain(createHash("sha256").update(key).digest("hex"));
    for (const line of out.split("\n").filter((l) => l.trim() !== ""))
      expect(() => JSON.parse(line), line).not.toThrow();
  }, 60_000);

  it("refusing: requests get 503 database_unavailable quickly, not 500 after seconds", async () => {
    await proxy.cut();
    try {
      for (let i = 0; i < 3; i++) {
        const r = await list(boundedUrl);
        expect(r.status).toBe(503);
        expect(r.body.error).toMatchObject({ type: "api_error", code: "database_unavailable" });
        expect(r.retryAfter).not.toBeNull();
        expect(r.ms).toBeLessThan(4_000);
      }
    } finally {
      await proxy.restore();
    }
    await untilOk(boundedUrl);
  }, 60_000);

  it("SIGTERM with requests stuck on a hung database answers them 503 before the exit", async () => {
    await untilOk(patientUrl);
    proxy.pause();
    try {
      const stuck = [1, 2, 3].map(() =>
        fetch(`${patientUrl}/api/v1/evaluations`, { headers: { Authorization: `Bearer ${key}` } }).then(
          async (res) => ({
            status: res.status,
            retryAfter: res.headers.get("retry-after"),
            body: await res.json(),
          }),
          (err: unknown) => ({ status: 0, retryAfter: null, body: String(err) }),
        ),
      );
      await new Promise((r) => setTimeout(r, 500));
      patient.child.kill("SIGTERM");
      const answers = await Promise.all(stuck);
      for (const a of answers) {
        expect(a.status).toBe(503);
        expect(a.body.error).toMatchObject({ type: "api_error", code: "server_stopping" });
        expect(a.retryAfter).not.toBeNull();
      }
      await patient.exited;
      expect(patient.stdout()).toContain("answered 503 to requests still waiting");
    } finally {
      await proxy.restore();
    }
  }, 60_000);
});
