import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseYaml } from "@redocly/openapi-core";
import {
  type FixtureSite,
  type ProviderServer,
  startFixtureSite,
  startOpenAIServer,
} from "@rubricon/agents/testing";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SSE_BODY } from "./helpers/assertions";
import { insertAutouser } from "./helpers/autousers";
import { type ChildProcess, freePort, SERVER_MAIN, startProcess, WORKER_MAIN } from "./helpers/process";
import { TEST_SECRETS, type TestServer } from "./helpers/server";
import { createEndpoint, type Receiver, startReceiver, until } from "./helpers/webhooks";

/**
 * The web process as an operator watches it: `/metrics` on METRICS_PORT (Prometheus text, parsed as Prometheus
 * would) and one JSON log line per request on stdout, with no secret of any request in it.
 */

const PG = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const PASSWORD = "pw-Sesame-4815162342";

let database: TestDatabase;
let web: ChildProcess;
let worker: ChildProcess | undefined;
let provider: ProviderServer | undefined;
let receiver: Receiver | undefined;
let site: FixtureSite | undefined;
let workerMetricsUrl = "";
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
    // Endpoints can be made here; the worker started below delivers.
    WEBHOOKS_ENABLED: "true",
    WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
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
  for (const p of [worker, web]) {
    if (p && p.child.exitCode === null) {
      p.child.kill("SIGTERM");
      await p.exited;
    }
  }
  await receiver?.close();
  await provider?.close();
  await site?.close();
  await database?.dispose();
});

let lastText = "";
async function scrape(url = metricsUrl) {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  lastText = await res.text();
  return parsePrometheusTextFormat(lastText);
}

/** A histogram's observation count for one label set, from its `_count` line (the parser drops its labels). */
function countOf(name: string, labels = ""): number {
  const line = lastText.split("\n").find((l) => l.startsWith(`${name}_count${labels ? `{${labels}}` : " "}`));
  return line === undefined ? 0 : Number(line.split(" ").pop());
}

/** The sum of a family's samples whose labels include `match`. */
function total(families: ReturnType<typeof parsePrometheusTextFormat>, name: string, match = {}): number {
  const family = families.find((f) => f.name === name);
  return (family?.metrics ?? [])
    .filter((m) => Object.entries(match).every(([k, v]) => (m.labels as Record<string, string>)?.[k] === v))
    .reduce((sum, m) => sum + Number(m.value), 0);
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

  it("Redis round trips and the Postgres pool's use are measured", async () => {
    await scrape();
    const before = countOf("rubricon_redis_round_trip_seconds", 'command="window_hit",outcome="ok"');
    const headers = { Authorization: `Bearer ${apiKey}` };
    // Many requests at once, scraped while they run: the pool is seen busy at least once.
    let inUse = 0;
    const load = Promise.all(
      Array.from({ length: 60 }, () => fetch(`${base}/api/v1/evaluations?limit=50`, { headers })),
    );
    let settled = false;
    void load.finally(() => {
      settled = true;
    });
    while (!settled) {
      inUse = Math.max(inUse, gauge(await scrape(), "rubricon_db_pool_connections_in_use"));
    }
    expect((await load).every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(inUse).toBeGreaterThan(0);
    const after = await scrape();
    expect(gauge(after, "rubricon_db_pool_waiting")).toBe(0);
    expect(
      countOf("rubricon_redis_round_trip_seconds", 'command="window_hit",outcome="ok"'),
    ).toBeGreaterThanOrEqual(before + 60);
  }, 60_000);

  it("a worker's runs, model use, leases and webhook outbox lag are measured", async () => {
    // The platform model answers every call with a reply both the planner ("done") and the judge (a rating) accept;
    // its usage is the scripted 42 tokens in, 17 out.
    provider = await startOpenAIServer({
      apiKey: "sk-platform",
      fallback: {
        type: "json",
        value: {
          action: "done",
          reason: "seen enough",
          ratings: { overall: 5 },
          justification: "Clear enough.",
        },
      },
    });
    // One more run, on a page the browser can load, so the model is called.
    site = await startFixtureSite();
    const auth = { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" };
    const created = await fetch(`${base}/api/v1/evaluations`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        name: "Model use",
        type: "SSE",
        designUrls: [{ url: site.urls.clean }],
        evaluationMethod: "ai",
        selectedAutousers: [{ autouserId, agentCount: 1 }],
      }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const running = await fetch(`${base}/api/v1/evaluations/${id}`, {
      method: "PATCH",
      headers: auth,
      body: JSON.stringify({ status: "Running" }),
    });
    expect(running.status).toBe(200);
    receiver = await startReceiver();
    // Webhooks are a Pro feature with billing on.
    const session = { Cookie: cookie, Origin: base, "Content-Type": "application/json" };
    const teams = (await (await fetch(`${base}/api/v1/teams`, { headers: session })).json()) as {
      data: { id: string }[];
    };
    const upgraded = await fetch(`${base}/api/v1/teams/${teams.data[0]!.id}/plan`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({ plan: "pro" }),
    });
    expect(upgraded.status, await upgraded.clone().text()).toBe(200);
    await createEndpoint(
      { api: `${base}/api/v1` } as TestServer,
      { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
      {
        url: receiver.url,
        enabled_events: ["*"],
      },
    );
    const workerMetrics = await freePort();
    worker = startProcess(WORKER_MAIN, {
      ...TEST_SECRETS,
      NODE_ENV: "test",
      BASE_URL: base,
      DATABASE_URL: database.url!,
      DATA_DIR: mkdtempSync(join(tmpdir(), "rubricon-obs-worker-")),
      METRICS_PORT: String(workerMetrics),
      METRICS_HOST: "127.0.0.1",
      WEBHOOKS_ENABLED: "true",
      WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
      AUTOUSER_ALLOW_PRIVATE_URLS: "true",
      AUTOUSER_CONCURRENCY: "3",
      AUTOUSER_PROVIDER: "openai",
      AUTOUSER_MODEL: "gpt-obs-test",
      AUTOUSER_API_KEY: "sk-platform",
      AUTOUSER_BASE_URL: provider.baseUrl,
      LOG_LEVEL: "info",
    });
    await worker.waitFor("started", 120_000);
    const url = `http://127.0.0.1:${workerMetrics}/metrics`;
    workerMetricsUrl = url;
    // The three runs queued above are taken (leases held), settled, and their events delivered.
    let held = 0;
    const families = await until(
      async () => {
        const f = await scrape(url);
        held = Math.max(held, gauge(f, "rubricon_worker_leases_held", { queue: "autouser_runs" }));
        // Later events may still be on their way out when the first is delivered: wait until no delivery lease
        // is held, so the gauge is read at rest, not mid-delivery.
        return total(f, "rubricon_autouser_runs_finished_total") >= 4 &&
          countOf("rubricon_webhook_outbox_lag_seconds") >= 1 &&
          gauge(f, "rubricon_worker_leases_held", { queue: "webhook_deliveries" }) === 0
          ? f
          : undefined;
      },
      150_000,
      "four settled runs and a delivered event",
    );
    expect(held).toBeGreaterThan(0);
    expect(gauge(families, "rubricon_worker_leases_held", { queue: "webhook_deliveries" })).toBe(0);
    const finished = families.find((f) => f.name === "rubricon_autouser_runs_finished_total")!.metrics;
    for (const m of finished) {
      const labels = m.labels as Record<string, string>;
      expect(["completed", "failed"]).toContain(labels.status);
      expect(["llm", "heuristic", "unknown"]).toContain(labels.judge);
      expect(labels.reason).toMatch(/^(ok|timeout|worker_lost|error|judge_[a-z_]+)$/);
    }
    expect(
      countOf("rubricon_autouser_run_duration_seconds", 'status="completed"') +
        countOf("rubricon_autouser_run_duration_seconds", 'status="failed"'),
    ).toBeGreaterThanOrEqual(4);
    expect(
      total(families, "rubricon_model_tokens_total", { provider: "openai", direction: "input" }),
      JSON.stringify(finished) + worker.stdout().slice(-3000),
    ).toBeGreaterThanOrEqual(42);
    expect(
      total(families, "rubricon_model_tokens_total", { provider: "openai", direction: "output" }),
    ).toBeGreaterThanOrEqual(17);
    expect(families.some((f) => f.name === "rubricon_model_cost_usd_total")).toBe(true);
    expect(receiver.requests.length).toBeGreaterThanOrEqual(1);
    // The worker's log names each run it settled.
    const settledLines = worker
      .stdout()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.loop === "autousers" && typeof l.runId === "string" && l.status);
    expect(settledLines.length).toBeGreaterThanOrEqual(3);
    expect(settledLines[0]!.runId).toMatch(/^arun_/);
  }, 300_000);

  it("exports every metric the shipped Grafana dashboard and alert rules read", async () => {
    await scrape(workerMetricsUrl);
    const workerText = lastText;
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
    const exported = new Set(
      [...`${lastText}\n${workerText}`.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!),
    );
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
