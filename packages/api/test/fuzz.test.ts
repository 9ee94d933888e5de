import { ErrorEnvelope, Template, WebhookEndpointWithSecret } from "@rubricon/contracts";
import { apiKeys, evaluations, events, ratings, teams, templates, webhookEndpoints } from "@rubricon/db";
import { count } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation, UUID_V7 } from "./helpers/assertions";
import {
  bearer,
  bodyOf,
  call,
  callRaw,
  mintApiKey,
  sessionHeaders,
  signUp,
  type TestUser,
} from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

/**
 * For every operation of the OpenAPI document, requests that break its schema: wrong types, huge strings, deep
 * nesting, unknown fields, invalid UTF-8 and NUL bytes, in bodies, queries and path ids. Whatever arrives, the
 * answer is never a 5xx, always the error envelope, and nothing is written. The seed and the count are fixed, so a
 * failure reproduces.
 */
const SEED = 20261123;
const CASES_PER_OPERATION = 8;

let server: TestServer;
let user: TestUser;
let key: string;
const fixtures: Record<string, string> = {};

beforeAll(async () => {
  server = await startTestServer({ env: { WEBHOOKS_ENABLED: "true", WEBHOOKS_ALLOW_PRIVATE_URLS: "true" } });
  user = await signUp(server, "fuzz");
  key = await mintApiKey(server, user, ["*"]);
  fixtures.evaluations = (await createEvaluation(server.api, bearer(key))).id;
  const template = await call(Template, `${server.api}/templates`, {
    method: "POST",
    headers: bearer(key),
    body: { teamId: user.teamId, name: "Fuzzed" },
  });
  fixtures.templates = bodyOf(template).id;
  fixtures.dimensions = bodyOf(template).id;
  const endpoint = await call(WebhookEndpointWithSecret, `${server.api}/webhooks`, {
    method: "POST",
    headers: bearer(key),
    body: { url: "http://127.0.0.1:9/hook", enabled_events: ["*"] },
  });
  fixtures.webhooks = bodyOf(endpoint).id;
  fixtures.teams = user.teamId;
}, 240_000);
afterAll(() => server?.close());

/** mulberry32: a small seeded generator, so every run sends the same requests. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  $ref?: string;
  items?: Schema;
};
type Operation = {
  parameters?: { name: string; in: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
};

const HUGE = "x".repeat(200_000);
const NUL = "a\u0000b";

function deep(depth: number): unknown {
  let v: unknown = "leaf";
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** A value of the wrong kind for `schema`, or a hostile one of the right kind. */
function badValue(next: () => number, schema: Schema | undefined): unknown {
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  const wrong: unknown[] = [
    type === "string" ? 12345 : "not-a-number",
    type === "array" ? { not: "an array" } : [1, 2, 3],
    type === "object" ? "a string" : { nested: { object: true } },
    type === "boolean" ? "yes" : true,
    HUGE,
    NUL,
    deep(500),
    -Number.MAX_VALUE,
    null,
  ];
  return wrong[Math.floor(next() * wrong.length)];
}

function resolve(
  doc: { components: { schemas: Record<string, Schema> } },
  schema?: Schema,
): Schema | undefined {
  if (schema?.$ref) return doc.components.schemas[schema.$ref.split("/").pop()!];
  return schema;
}

const PATH_VALUES = [
  "%00",
  "x".repeat(5_000),
  "..%2F..%2Fetc%2Fpasswd",
  "eval_%F0%9F%92%A9",
  "%E0%A4%A",
  "' OR 1=1 --",
];

describe("every operation, given input that breaks its schema", () => {
  it("answers a 4xx in the error envelope, never a 5xx, and writes nothing", async () => {
    const doc = (await callRaw(`${server.api}/openapi.json`)).body as {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, Schema> };
    };
    const db = server.app.services.db;
    const tables = { apiKeys, evaluations, events, ratings, teams, templates, webhookEndpoints };
    const counts = async () =>
      Object.fromEntries(
        await Promise.all(
          Object.entries(tables).map(async ([name, table]) => [
            name,
            (await db.select({ n: count() }).from(table))[0]!.n,
          ]),
        ),
      );
    const before = await counts();
    const next = random(SEED);
    const failures: string[] = [];
    let sent = 0;

    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (method === "parameters") continue;
        for (let c = 0; c < CASES_PER_OPERATION; c++) {
          // Half the cases use real ids, so validation is reached behind the lookup too.
          const family = path.split("/")[1]!;
          const url = path.replace(/\{(\w+)\}/g, (_, name: string) =>
            // A DELETE on a real id is a valid request; only its path is fuzzed.
            c % 2 === 0 && name === "id" && fixtures[family] && method !== "delete"
              ? fixtures[family]!
              : PATH_VALUES[Math.floor(next() * PATH_VALUES.length)]!,
          );
          const query = new URLSearchParams();
          for (const p of op.parameters ?? []) {
            if (p.in === "query" && next() < 0.7)
              query.append(p.name, String(badValue(next, p.schema)).slice(0, 5_000));
          }
          const headers = c % 3 === 0 ? sessionHeaders(server, user) : bearer(key);
          const upper = method.toUpperCase();
          let body: string | Uint8Array | undefined;
          if (upper === "POST" || upper === "PATCH" || upper === "PUT") {
            const schema = resolve(doc, op.requestBody?.content?.["application/json"]?.schema);
            const fields = Object.entries(schema?.properties ?? {});
            // A body with no fields to break gets unknown ones instead: `{}` may be a valid request.
            const kind = fields.length === 0 && c % 4 === 0 ? 1 : c % 4;
            if (kind === 0) {
              body = JSON.stringify(
                Object.fromEntries(fields.map(([name, s]) => [name, badValue(next, resolve(doc, s))])),
              );
            } else if (kind === 1) {
              body = JSON.stringify({ unknownField: 1, [`${"k".repeat(300)}`]: NUL });
            } else if (kind === 2) {
              body = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d]);
            } else {
              body = `${"[".repeat(100_000)}"leaf"${"]".repeat(100_000)}`;
            }
          }
          const stop = new AbortController();
          const res = await fetch(`${server.api}${url}${query.size ? `?${query}` : ""}`, {
            method: upper,
            headers,
            body: body as BodyInit | undefined,
            signal: stop.signal,
          });
          sent++;
          const label = `${upper} ${path} case ${c} → ${res.status}`;
          // A served event stream stays open (the team's live events never end): its status is the answer.
          const streaming = res.headers.get("content-type")?.startsWith("text/event-stream") === true;
          if (streaming) stop.abort();
          const text = streaming ? "" : await res.text();
          if (res.status >= 500) failures.push(`${label}: ${text.slice(0, 200)}`);
          // A bodiless write with no path parameter and no query drawn (DELETE /settings/byok) sent nothing broken.
          else if (
            res.status < 400 &&
            upper !== "GET" &&
            (query.size > 0 || body !== undefined || path.includes("{"))
          )
            failures.push(`${label}: a write accepted broken input`);
          else if (res.status >= 400) {
            const parsed = ErrorEnvelope.safeParse(JSON.parse(text || "null"));
            if (!parsed.success) failures.push(`${label}: not the error envelope: ${text.slice(0, 200)}`);
            else if (parsed.data.error.request_id !== res.headers.get("x-request-id"))
              failures.push(`${label}: request_id differs from X-Request-Id`);
          }
          if (!UUID_V7.test(res.headers.get("x-request-id") ?? "")) failures.push(`${label}: no request id`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(300);
    expect(await counts()).toEqual(before);
  }, 300_000);
});
