import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ProviderServer, startOpenAIServer } from "@rubricon/agents/testing";
import { AiInsights, Rating } from "@rubricon/contracts";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectStatus } from "./helpers/assertions";
import { bearer, call } from "./helpers/clients";
import { type ChildProcess, freePort, SERVER_MAIN, startProcess } from "./helpers/process";
import { runningEvaluation } from "./helpers/ratings";
import { TEST_SECRETS, type TestServer } from "./helpers/server";
import { createEndpoint, type Receiver, startReceiver, until, WEBHOOKS_ON } from "./helpers/webhooks";

/**
 * Traces as an operator's collector receives them: the web process started with OTEL_EXPORTER_OTLP_ENDPOINT
 * pointing at an OTLP/HTTP receiver on loopback, which decodes every export (the exporter's JSON encoding).
 */

const PG = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const JUSTIFICATION = "The checkout total was easy to find and paying took two taps.";

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
  events?: { name: string; attributes?: { key: string; value: OtlpValue }[] }[];
}

/** Every span received, with its service, and every raw export body (to search for text that must not leave). */
const received: { service: string; span: OtlpSpan }[] = [];
const rawBodies: string[] = [];
let collector: Server;
let collectorUrl: string;
const contentTypes = new Set<string>();

function attr(span: OtlpSpan, key: string): string | number | boolean | undefined {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  if (!v) return undefined;
  return v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue));
}

let database: TestDatabase;
let web: ChildProcess;
let base: string;
let provider: ProviderServer;
let receiver: Receiver;

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      contentTypes.add(String(req.headers["content-type"]));
      if (req.url === "/v1/traces") {
        rawBodies.push(body);
        const decoded = JSON.parse(body) as {
          resourceSpans: {
            resource: { attributes: { key: string; value: OtlpValue }[] };
            scopeSpans: { spans: OtlpSpan[] }[];
          }[];
        };
        for (const rs of decoded.resourceSpans) {
          const service = String(
            rs.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue,
          );
          for (const ss of rs.scopeSpans) for (const span of ss.spans) received.push({ service, span });
        }
      }
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => collector.listen(0, "127.0.0.1", r));
  collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  provider = await startOpenAIServer({ apiKey: "sk-platform" });
  receiver = await startReceiver();
  database = await createTestDatabase({ ...process.env, DATABASE_URL: PG });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  web = startProcess(SERVER_MAIN, {
    ...TEST_SECRETS,
    ...WEBHOOKS_ON,
    NODE_ENV: "test",
    PORT: String(port),
    BASE_URL: base,
    DATABASE_URL: database.url!,
    REDIS_URL: REDIS,
    REDIS_KEY_PREFIX: `trace-${port}:`,
    DATA_DIR: mkdtempSync(join(tmpdir(), "rubricon-trace-")),
    PASSWORD_HASH_LOG_N: "12",
    AUTOUSER_PROVIDER: "openai",
    AUTOUSER_MODEL: "gpt-trace-test",
    AUTOUSER_API_KEY: "sk-platform",
    AUTOUSER_BASE_URL: provider.baseUrl,
    OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
    // Exports every 200 ms instead of every 5 s, so the test does not wait long.
    OTEL_BSP_SCHEDULE_DELAY: "200",
    LOG_LEVEL: "debug",
  });
  await web.waitFor("Rubricon ready", 90_000);
}, 120_000);

afterAll(async () => {
  if (web && web.child.exitCode === null) {
    web.child.kill("SIGTERM");
    await web.exited;
  }
  await database?.dispose();
  await receiver?.close();
  await provider?.close();
  await new Promise((r) => collector?.close(r));
});

function jsonLines(): Record<string, unknown>[] {
  return web
    .stdout()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

let headers: Record<string, string>;
const INCOMING_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const INCOMING_PARENT = "00f067aa0ba902b7";

describe("traces exported to an OTLP collector", () => {
  it("an idle process exports no traces of its polling: only work is traced", async () => {
    // The embedded worker polls its queues several times a second; none of those statements is work.
    await new Promise((r) => setTimeout(r, 3_000));
    const roots = received.filter((r) => !r.span.parentSpanId);
    expect(roots.filter((r) => attr(r.span, "db.system") !== undefined).map((r) => r.span.name)).toEqual([]);
    expect(roots).toHaveLength(0);
  }, 20_000);

  it("a request with a traceparent continues the caller's trace, named by its route template", async () => {
    const signUp = await fetch(`${base}/api/auth/sign-up`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: base },
      body: JSON.stringify({ email: "tracer@example.com", password: "pw-Trace-31415926", name: "Tracer" }),
    });
    expect(signUp.status).toBe(201);
    const cookie = signUp.headers.getSetCookie()[0]!.split(";")[0]!;
    const minted = await fetch(`${base}/api/v1/api-keys`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: base, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "trace", scopes: ["*"] }),
    });
    expect(minted.status).toBe(201);
    headers = bearer(((await minted.json()) as { key: string }).key);

    const res = await fetch(`${base}/api/v1/evaluations/eval_${"t".repeat(24)}`, {
      headers: { ...headers, traceparent: `00-${INCOMING_TRACE}-${INCOMING_PARENT}-01` },
    });
    expect(res.status).toBe(404);
    const server = await until(
      () => received.find((r) => r.span.traceId === INCOMING_TRACE && r.span.kind === 2 /* SERVER */)?.span,
      15_000,
      "the server span",
    );
    expect(server.parentSpanId).toBe(INCOMING_PARENT);
    expect(server.name).toBe("GET /api/v1/evaluations/{id}");
    expect(attr(server, "http.route")).toBe("/api/v1/evaluations/{id}");
    expect(attr(server, "http.response.status_code")).toBe(404);
    expect(received.find((r) => r.span.spanId === server.spanId)?.service).toBe("rubricon-web");

    // The statements it ran and its rate-limit round trip are in the same trace, under it.
    const inTrace = await until(
      () => {
        const spans = received.filter((r) => r.span.traceId === INCOMING_TRACE).map((r) => r.span);
        return spans.some((s) => attr(s, "db.system") === "postgresql") &&
          spans.some((s) => attr(s, "db.system") === "redis")
          ? spans
          : undefined;
      },
      10_000,
      "db and redis spans",
    );
    const db = inTrace.filter((s) => attr(s, "db.system") === "postgresql");
    expect(db.every((s) => s.kind === 3 /* CLIENT */)).toBe(true);
    expect(db.map((s) => attr(s, "db.operation"))).toContain("SELECT");
    expect(db.some((s) => /^SELECT [a-z_]+$/.test(s.name))).toBe(true);
    const ids = new Set(inTrace.map((s) => s.spanId));
    expect(db.every((s) => s.parentSpanId && ids.has(s.parentSpanId))).toBe(true);
    const redis = inTrace.find((s) => attr(s, "db.system") === "redis")!;
    expect(redis.name).toBe("redis window_hit");
    // No statement's values: the id asked for is nowhere in what was exported.
    expect(rawBodies.join("\n")).not.toContain("t".repeat(24));

    // The request's log line carries the trace it belongs to.
    const line = jsonLines().find((l) => l.msg === "request" && l.route === "/evaluations/{id}");
    expect(line).toMatchObject({ traceId: INCOMING_TRACE, spanId: server.spanId });
    expect(contentTypes.has("application/json")).toBe(true);
  }, 60_000);

  it("a webhook delivery is a client span, and the receiver gets its traceparent", async () => {
    const endpoint = await createEndpoint({ api: `${base}/api/v1` } as TestServer, headers, {
      url: receiver.url,
      enabled_events: ["*"],
    });
    expect(endpoint.id).toMatch(/^whe_/);
    const { evaluation, comparisonIds } = await runningEvaluation(
      { api: `${base}/api/v1` } as TestServer,
      headers,
      { count: 1 },
    );
    const rating = await call(Rating, `${base}/api/v1/evaluations/${evaluation.id}/ratings`, {
      method: "POST",
      headers,
      body: {
        comparisonId: comparisonIds[0],
        dimensionRatings: { overall: 6 },
        justification: JUSTIFICATION,
      },
    });
    expectStatus(rating, 201);
    const delivered = await until(
      () => receiver.requests.find((r) => r.body.includes('"rating.created"')),
      20_000,
      "the rating.created delivery",
    );
    const traceparent = String(delivered.headers.traceparent);
    const [, traceId, spanId] = traceparent.split("-");
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const span = await until(
      () => received.find((r) => r.span.spanId === spanId)?.span,
      15_000,
      "the delivery span",
    );
    expect(span.traceId).toBe(traceId);
    expect(span.name).toBe("webhook.deliver");
    expect(span.kind).toBe(3);
    expect(attr(span, "rubricon.webhook.event.type")).toBe("rating.created");
    expect(attr(span, "http.response.status_code")).toBe(200);
    const deliveryId = attr(span, "rubricon.webhook.delivery.id");
    expect(deliveryId).toBe(delivered.headers["service-delivery-id"]);
    // The delivery's log line names the delivery and the trace it ran in.
    const line = await until(
      () => jsonLines().find((l) => l.deliveryId === deliveryId && l.msg !== "request"),
      5_000,
      "the delivery's log line",
    );
    expect(line).toMatchObject({ loop: "webhooks", traceId, ok: true });
  }, 60_000);

  it("a model call is a span with the GenAI attributes and, by default, no prompt or reply text", async () => {
    const { evaluation } = await runningEvaluation({ api: `${base}/api/v1` } as TestServer, headers, {
      count: 1,
    });
    const list = await fetch(`${base}/api/v1/evaluations/${evaluation.id}/comparisons?limit=10`, { headers });
    const comparisons = ((await list.json()) as { data: { id: string }[] }).data;
    const rating = await call(Rating, `${base}/api/v1/evaluations/${evaluation.id}/ratings`, {
      method: "POST",
      headers,
      body: {
        comparisonId: comparisons[0]!.id,
        dimensionRatings: { overall: 5 },
        justification: JUSTIFICATION,
      },
    });
    expectStatus(rating, 201);
    provider.enqueue({
      type: "json",
      value: { summary: "A summary only the model wrote.", themes: [], comparisons: [] },
    });
    const url = `${base}/api/v1/evaluations/${evaluation.id}/ai-insights`;
    expectStatus(await call(AiInsights, url, { method: "POST", headers }), 202);
    await until(
      async () => {
        const res = await call(AiInsights, url, { headers });
        return res.status === 200 && (res.body as { status: string }).status === "ready";
      },
      30_000,
      "the insights",
    );
    // The model saw the justification; the exported spans never hold it.
    expect(JSON.stringify(provider.requests.at(-1)!.body)).toContain(JUSTIFICATION);
    const model = await until(
      () => received.map((r) => r.span).find((s) => attr(s, "gen_ai.request.model") === "gpt-trace-test"),
      15_000,
      "the model call span",
    );
    expect(String(attr(model, "gen_ai.system"))).toMatch(/^openai/);
    expect(attr(model, "gen_ai.usage.input_tokens")).toBeGreaterThan(0);
    expect(attr(model, "gen_ai.usage.output_tokens")).toBeGreaterThan(0);
    const exported = rawBodies.join("\n");
    expect(exported).not.toContain(JUSTIFICATION);
    expect(exported).not.toContain("A summary only the model wrote.");
    expect(exported).not.toContain("sk-platform");
  }, 90_000);
});
