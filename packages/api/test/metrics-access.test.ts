import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildProcess, freePort, SERVER_MAIN, startProcess } from "./helpers/process";
import { TEST_SECRETS } from "./helpers/server";

/**
 * Who can read `/metrics`: the metrics port listens on loopback unless the operator says otherwise, and
 * `METRICS_TOKEN` serves it on the main port to a bearer of the token, and to no one else.
 */
const PG = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const TOKEN = "metrics-token-0123456789abcdef0123456789";

let database: TestDatabase;
let web: ChildProcess;
let port: number;
let metricsPort: number;

beforeAll(async () => {
  database = await createTestDatabase({ ...process.env, DATABASE_URL: PG });
  [port, metricsPort] = [await freePort(), await freePort()];
  web = startProcess(SERVER_MAIN, {
    ...TEST_SECRETS,
    NODE_ENV: "test",
    DATABASE_URL: database.url,
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: mkdtempSync(join(tmpdir(), "rubricon-metrics-")),
    EMBEDDED_WORKER: "false",
    METRICS_PORT: String(metricsPort),
    METRICS_TOKEN: TOKEN,
  });
  await web.waitFor("Rubricon ready", 90_000);
}, 120_000);

afterAll(async () => {
  if (web && web.child.exitCode === null) {
    web.child.kill("SIGTERM");
    await web.exited;
  }
  await database?.dispose();
});

describe("metrics access", () => {
  it("the metrics port answers on loopback only by default", async () => {
    const local = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(local.status).toBe(200);
    // 127.0.0.2 is this host too, but not the address the port is bound to: a 0.0.0.0 listener would answer.
    await expect(fetch(`http://127.0.0.2:${metricsPort}/metrics`)).rejects.toThrow();
  });

  it("METRICS_TOKEN serves /metrics on the main port to its bearer only", async () => {
    const main = `http://127.0.0.1:${port}/metrics`;
    await fetch(`http://127.0.0.1:${port}/api/v1/evaluations`);
    const withToken = await fetch(main, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(withToken.status).toBe(200);
    expect(withToken.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await withToken.text();
    expect(text).toContain("rubricon_http_request_duration_seconds");
    expect(text).toContain("rubricon_process_cpu_seconds_total");

    const attempts: Record<string, string>[] = [
      {},
      { Authorization: "Bearer wrong" },
      { Authorization: `Basic ${TOKEN}` },
    ];
    for (const headers of attempts) {
      const refused = await fetch(main, { headers });
      expect(refused.status).toBe(401);
      expect(await refused.text()).not.toContain("rubricon_");
    }
  });

  it("a page request carries a request id in its header and its log line; every stdout line is JSON", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/some/dashboard/page`);
    const id = res.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await web.waitFor(id!, 5_000);
    const lines = web
      .stdout()
      .split("\n")
      .filter((l) => l.trim() !== "");
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === id);
    expect(logged).toMatchObject({ msg: "request", route: "web", status: 404 });
  });
});
