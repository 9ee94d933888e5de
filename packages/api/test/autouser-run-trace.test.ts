import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FixtureSite, startFixtureSite } from "@rubricon/agents/testing";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertAutouser } from "./helpers/autousers";
import { type ChildProcess, freePort, SERVER_MAIN, startProcess, WORKER_MAIN } from "./helpers/process";
import { TEST_SECRETS, type TestServer } from "./helpers/server";
import { until } from "./helpers/webhooks";

/**
 * An autouser run as an operator's collector receives it: the worker process, started with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver on loopback, drives one run of the heuristic judge
 * (no model configured) against a loopback page; the run is one `autouser.run` span with its turns as events.
 */

const PG = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  name: string;
  attributes?: OtlpAttribute[];
  events?: { name: string; attributes?: OtlpAttribute[] }[];
  status?: { code?: number };
}

const received: { service: string; span: OtlpSpan }[] = [];
let collector: Server;
let database: TestDatabase;
let site: FixtureSite;
let web: ChildProcess;
let worker: ChildProcess | undefined;
let base: string;

function attrOf(attributes: OtlpAttribute[] | undefined, key: string): string | number | boolean | undefined {
  const v = attributes?.find((a) => a.key === key)?.value;
  if (!v) return undefined;
  return v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue));
}

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url === "/v1/traces") {
        const decoded = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
        };
        for (const rs of decoded.resourceSpans) {
          const service = String(attrOf(rs.resource.attributes, "service.name"));
          for (const ss of rs.scopeSpans) for (const span of ss.spans) received.push({ service, span });
        }
      }
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => collector.listen(0, "127.0.0.1", r));
  site = await startFixtureSite();
  database = await createTestDatabase({ ...process.env, DATABASE_URL: PG });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  web = startProcess(SERVER_MAIN, {
    ...TEST_SECRETS,
    NODE_ENV: "test",
    PORT: String(port),
    BASE_URL: base,
    DATABASE_URL: database.url!,
    DATA_DIR: mkdtempSync(join(tmpdir(), "rubricon-run-trace-")),
    // The worker started below drives the run.
    EMBEDDED_WORKER: "false",
    PASSWORD_HASH_LOG_N: "12",
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
  await database?.dispose();
  await site?.close();
  await new Promise((r) => collector?.close(r));
});

describe("an autouser run exported to an OTLP collector", () => {
  it("is one autouser.run span of the worker, judged by the heuristic, with a turn event per step", async () => {
    const signUp = await fetch(`${base}/api/auth/sign-up`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: base },
      body: JSON.stringify({ email: "runs@example.com", password: "pw-Trace-27182818", name: "Runner" }),
    });
    expect(signUp.status).toBe(201);
    const cookie = signUp.headers.getSetCookie()[0]!.split(";")[0]!;
    const minted = await fetch(`${base}/api/v1/api-keys`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: base, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "runs", scopes: ["*"] }),
    });
    expect(minted.status).toBe(201);
    const auth = {
      Authorization: `Bearer ${((await minted.json()) as { key: string }).key}`,
      "Content-Type": "application/json",
    };
    const autouserId = await insertAutouser({ database } as unknown as TestServer, null);
    const created = await fetch(`${base}/api/v1/evaluations`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        name: "Traced run",
        type: "SSE",
        designUrls: [{ url: site.urls.clean }],
        evaluationMethod: "ai",
        selectedAutousers: [{ autouserId, agentCount: 1 }],
      }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id: evaluationId } = (await created.json()) as { id: string };
    const running = await fetch(`${base}/api/v1/evaluations/${evaluationId}`, {
      method: "PATCH",
      headers: auth,
      body: JSON.stringify({ status: "Running" }),
    });
    expect(running.status).toBe(200);

    worker = startProcess(WORKER_MAIN, {
      ...TEST_SECRETS,
      NODE_ENV: "test",
      BASE_URL: base,
      DATABASE_URL: database.url!,
      DATA_DIR: mkdtempSync(join(tmpdir(), "rubricon-run-trace-worker-")),
      AUTOUSER_ALLOW_PRIVATE_URLS: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
      // Exports every 200 ms instead of every 5 s, so the test does not wait long.
      OTEL_BSP_SCHEDULE_DELAY: "200",
      LOG_LEVEL: "info",
    });
    await worker.waitFor("started", 120_000);

    const found = await until(
      () =>
        received.find(
          (r) =>
            r.span.name === "autouser.run" &&
            attrOf(r.span.attributes, "rubricon.evaluation.id") === evaluationId &&
            attrOf(r.span.attributes, "rubricon.run.status") !== undefined,
        ),
      120_000,
      "the autouser.run span",
    );
    const { span } = found;
    expect(found.service).toBe("rubricon-worker");
    expect(attrOf(span.attributes, "rubricon.run.id")).toMatch(/^arun_/);
    expect(attrOf(span.attributes, "rubricon.run.judge")).toBe("heuristic");
    expect(attrOf(span.attributes, "rubricon.run.status")).toBe("completed");
    expect(attrOf(span.attributes, "rubricon.run.reason")).toBe("ok");
    const turns = (span.events ?? []).filter((e) => e.name === "turn");
    expect(turns.length).toBeGreaterThan(0);
    // Turns are numbered from 1 in order, each naming its action and its model use (none for the heuristic).
    expect(turns.map((e) => attrOf(e.attributes, "turn"))).toEqual(turns.map((_, i) => i + 1));
    for (const turn of turns) {
      expect(typeof attrOf(turn.attributes, "action")).toBe("string");
      expect(attrOf(turn.attributes, "gen_ai.usage.input_tokens")).toBe(0);
    }
  }, 240_000);
});
