import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseYaml } from "@redocly/openapi-core";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SSE_BODY } from "./helpers/assertions";
import { insertAutouser } from "./helpers/autousers";
import { type ChildProcess, freePort, SERVER_MAIN, startProcess } from "./helpers/process";
import { TEST_SECRETS, type TestServer } from "./helpers/server";

/**
 * The web process as an operator watches it: `/metrics` on METRICS_PORT (Prometheus text, parsed as Prometheus
 * would) and one JSON log line per request on stdout, with no secret of any request in it.
 */
const PG = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const PASSWORD = "pw-Sesame-4815162342";

let database: TestDatabase;
let web: ChildProcess;
let base: string;
let metricsUrl: string;
let autouserId: string;

beforeAll(async () => {
  database = await createTestDatabase({ ...process.env, DATABASE_URL: PG });
  autouserId = await insertAutouser({ database } as unknown as TestServer, null);
  const [port, metricsPort] = [await freePort(), await freePort()];
  base = `http://127.0.0.1:${port}`;
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  web = startProcess(SERVER_MAIN, {
    ...TEST_SECRETS,
    NODE_ENV: "test",
    PORT: String(port),
    BASE_URL: base,
    DATABASE_URL: database.url!,
    REDIS_URL: REDIS,
    REDIS_KEY_PREFIX: `obs-${port}:`,
    DATA_DIR: mkdtempSync(join(tmpdir(), "rubricon-obs-")),
    EMBEDDED_WORKER: "false",
    RATE_LIMIT_MODE: "log",
    // Billing on: new teams start on Free (60 a minute), so most of the 1,000 requests below pass the limit.
    BILLING_ENABLED: "true",
    PASSWORD_HASH_LOG_N: "12",
    METRICS_PORT: String(metricsPort),
    METRICS_HOST: "127.0.0.1",
    LOG_LEVEL: "info",
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

let lastText = "";
async function scrape() {
  const res = await fetch(metricsUrl);
  expect(res.status).toBe(200);
  lastText = await res.text();
  return parsePrometheusTextFormat(lastText);
}

/**
 * Every HTTP series. The parser reads counters and gauges; it drops the labels of histogram lines whose `le`
 * comes first (prom-client's order), so histogram series are read from their `_count` lines.
 */
function httpSeries(families: ReturnType<typeof parsePrometheusTextFormat>): string[] {
  const plain = families
    .filter((f) => f.type !== "HISTOGRAM")
    .filter((f) => f.name.startsWith("rubricon_http_"))
    .flatMap((f) => f.metrics.map((m) => `${f.name}${JSON.stringify(m.labels ?? {})}`));
  const histogram = lastText
    .split("\n")
    .filter((l) => l.startsWith("rubricon_http_request_duration_seconds_count"));
  return [...plain, ...histogram.map((l) => l.replace(/ \S+$/, ""))].sort();
}

function histogramCount(labels: string): number {
  const line = lastText
    .split("\n")
    .find((l) => l.startsWith(`rubricon_http_request_duration_seconds_count{${labels}}`));
  return Number(line?.split(" ").pop());
}

function gauge(families: ReturnType<typeof parsePrometheusTextFormat>, name: string, labels = {}): number {
  const family = families.find((f) => f.name === name);
  const sample = family?.metrics.find((m) => JSON.stringify(m.labels ?? {}) === JSON.stringify(labels));
  return Number(sample?.value);
}

let apiKey: string;
let cookie: string;

describe("an operator watching the web process", () => {
  it("signs up and mints a key (the secrets the log must not hold)", async () => {
    const signUp = await fetch(`${base}/api/auth/sign-up`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: base },
      body: JSON.stringify({ email: "watcher@example.com", password: PASSWORD, name: "Watcher" }),
    });
    expect(signUp.status).toBe(201);
    cookie = signUp.headers.getSetCookie()[0]!.split(";")[0]!;
    const minted = await fetch(`${base}/api/v1/api-keys`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: base, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "ops", scopes: ["*"] }),
    });
    expect(minted.status).toBe(201);
    apiKey = ((await minted.json()) as { key: string }).key;
  });

  it("1,000 requests to 1,000 different ids add no series", async () => {
    const headers = { Authorization: `Bearer ${apiKey}` };
    const hit = (id: string) =>
      fetch(`${base}/api/v1/evaluations/eval_${id}`, { headers }).then((r) => r.status);
    expect(await hit(`w${"0".repeat(23)}`)).toBe(404);
    const before = httpSeries(await scrape());
    expect(before.some((s) => s.includes('route="/evaluations/{id}"'))).toBe(true);
    for (let batch = 0; batch < 50; batch++) {
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          hit(`k${String(batch * 20 + i).padStart(4, "0")}${"q".repeat(19)}`),
        ),
      );
      expect(new Set(statuses)).toEqual(new Set([404]));
    }
    const after = await scrape();
    expect(httpSeries(after)).toEqual(before);
    expect(
      histogramCount('method="GET",route="/evaluations/{id}",status_class="4xx"'),
    ).toBeGreaterThanOrEqual(1001);
    expect(
      gauge(after, "rubricon_http_errors_total", { code: "evaluation_not_found" }),
    ).toBeGreaterThanOrEqual(1001);
    // Free plan, RATE_LIMIT_MODE=log: the first 60 a minute are allowed, the rest served and logged.
    expect(gauge(after, "rubricon_rate_limit_decisions_total", { decision: "allowed" })).toBeGreaterThan(0);
    expect(gauge(after, "rubricon_rate_limit_decisions_total", { decision: "logged" })).toBeGreaterThan(900);
    // Process metrics ride along.
    expect(after.some((f) => f.name === "rubricon_process_resident_memory_bytes")).toBe(true);
    expect(after.some((f) => f.name === "rubricon_nodejs_eventloop_lag_seconds")).toBe(true);
  }, 120_000);

  it("queue gauges follow the autouser queue", async () => {
    const before = await scrape();
    expect(gauge(before, "rubricon_autouser_runs", { status: "queued" })).toBe(0);
    expect(gauge(before, "rubricon_autouser_oldest_queued_seconds")).toBe(0);
    expect(gauge(before, "rubricon_webhook_deliveries", { status: "pending" })).toBe(0);
    const json = { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" };
    const created = await fetch(`${base}/api/v1/evaluations`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({
        ...SSE_BODY,
        evaluationMethod: "both",
        selectedAutousers: [{ autouserId, agentCount: 3 }],
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
    await new Promise((r) => setTimeout(r, 1_100));
    const after = await scrape();
    expect(gauge(after, "rubricon_autouser_runs", { status: "queued" })).toBe(3);
    expect(gauge(after, "rubricon_autouser_oldest_queued_seconds")).toBeGreaterThanOrEqual(1);
  });

  it("exports every metric the shipped Grafana dashboard and alert rules read", async () => {
    await scrape();
    const deploy = join(import.meta.dirname, "../../../deploy");
    const dashboard = JSON.parse(readFileSync(join(deploy, "grafana/rubricon-dashboard.json"), "utf8")) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const rules = parseYaml(readFileSync(join(deploy, "prometheus/alerts.yml"), "utf8")) as {
      groups: { rules: { alert: string; expr: string }[] }[];
    };
    const exprs = [
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
      ...rules.groups.flatMap((g) => g.rules.map((r) => r.expr)),
    ];
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(10);
    expect(rules.groups[0]!.rules.length).toBeGreaterThanOrEqual(6);
    const names = new Set(
      exprs.flatMap((e) =>
        [...e.matchAll(/\b(rubricon_[a-z0-9_]+?)(?:_bucket|_count|_sum)?\b/g)].map((m) => m[1]!),
      ),
    );
    expect(names.size).toBeGreaterThanOrEqual(10);
    const exported = new Set([...lastText.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
    expect([...names].filter((n) => !exported.has(n))).toEqual([]);
  });

  it("logs one JSON line per request, by route template, with no secret", async () => {
    const lines = web
      .stdout()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const requests = lines.filter((l) => l.msg === "request");
    expect(requests.length).toBeGreaterThanOrEqual(1003);
    const notFound = requests.find((l) => l.route === "/evaluations/{id}" && l.status === 404)!;
    expect(notFound).toMatchObject({
      method: "GET",
      principal: "api_key",
      errorCode: "evaluation_not_found",
    });
    expect(notFound.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(notFound.teamId).toMatch(/^team_/);
    expect(typeof notFound.ms).toBe("number");
    const signUp = requests.find((l) => l.route === "/api/auth" && l.method === "POST");
    expect(signUp?.status).toBe(201);
    const out = web.stdout() + web.stderr();
    for (const secret of [PASSWORD, apiKey, cookie.split("=")[1]!, "eval_k0021"])
      expect(out).not.toContain(secret);
  });
});
