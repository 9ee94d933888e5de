import { Autouser, Template, WebhookEndpointWithSecret } from "@rubricon/contracts";
import { setTeamLimits, setTeamPlan } from "@rubricon/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation } from "./helpers/assertions";
import {
  bearer,
  bodyOf,
  call,
  callRaw,
  mintApiKey,
  mintOAuthToken,
  mintPluginToken,
  sessionHeaders,
  signUp,
  type TestUser,
} from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

/**
 * Every route of the OpenAPI document × every kind of caller × own team and another team. The matrix checks the
 * authorization layer, whatever the route then makes of the (empty) input: no credentials are 401; a key or token
 * without the route's scope is 403 `missing_required_scope`; a key or token on a session-only route is 403
 * `session_required`; a caller that passes is never refused for credentials or scope; and another team's
 * resource is never served.
 */
type Operation = {
  "x-required-scope"?: string;
  "x-required-scopes"?: string[];
  "x-session-only"?: boolean;
  "x-public"?: boolean;
};

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
const own: Record<string, string> = {};
const foreign: Record<string, string> = {};

async function fixturesOf(user: TestUser, into: Record<string, string>) {
  const key = await mintApiKey(server, user, ["*"]);
  into.evaluations = (await createEvaluation(server.api, bearer(key))).id;
  into.templates = bodyOf(
    await call(Template, `${server.api}/templates`, {
      method: "POST",
      headers: bearer(key),
      body: { teamId: user.teamId, name: "Matrix" },
    }),
  ).id;
  into.dimensions = into.templates!;
  into.autousers = bodyOf(
    await call(Autouser, `${server.api}/autousers`, {
      method: "POST",
      headers: bearer(key),
      body: { name: "Matrix", role: "A persona of the matrix" },
    }),
  ).id;
  into.webhooks = bodyOf(
    await call(WebhookEndpointWithSecret, `${server.api}/webhooks`, {
      method: "POST",
      headers: bearer(key),
      body: { url: "http://127.0.0.1:9/hook", enabled_events: ["*"] },
    }),
  ).id;
  into.teams = user.teamId;
}

beforeAll(async () => {
  // The matrix makes several requests per route from one team, more than a minute's budget: limits are only logged.
  server = await startTestServer({
    env: { WEBHOOKS_ENABLED: "true", WEBHOOKS_ALLOW_PRIVATE_URLS: "true", RATE_LIMIT_MODE: "log" },
  });
  alice = await signUp(server, "matrix-alice");
  bob = await signUp(server, "matrix-bob");
  // The matrix sends several requests per route of the document: more than a Pro team's minute holds.
  const { services } = server.app;
  const ctx = { db: services.db, clock: services.clock, baseUrl: services.env.baseUrl };
  for (const user of [alice, bob]) {
    await setTeamPlan(ctx, user.teamId, "enterprise");
    await setTeamLimits(ctx, user.teamId, { requestsPerMinute: 100_000 });
  }
  await fixturesOf(alice, own);
  await fixturesOf(bob, foreign);
}, 60_000);
afterAll(() => server?.close());

/**
 * A route's answer, raw. An event stream that is served stays open (the team's live events never end), so only
 * its status is read and the stream closed; everything else is read whole.
 */
async function answerOf(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: unknown },
): Promise<{ status: number; body: unknown }> {
  const stop = new AbortController();
  const res = await fetch(url, {
    method: init.method,
    headers: init.headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: stop.signal,
  });
  if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
    stop.abort();
    return { status: res.status, body: null };
  }
  const text = await res.text();
  try {
    return { status: res.status, body: text ? JSON.parse(text) : null };
  } catch {
    return { status: res.status, body: text };
  }
}

const FAMILY_SCOPES = ["templates", "evaluations", "autousers", "ratings", "webhooks"];

/** A scope of another family than the route's, so it grants nothing here. */
function unrelatedScope(required: string[]): string {
  const families = new Set(required.map((s) => s.split(":")[0]));
  const other = FAMILY_SCOPES.find((f) => !families.has(f))!;
  return `${other}:read`;
}

describe("the authorization matrix", () => {
  it("holds for every route, caller and team", async () => {
    const doc = (await callRaw(`${server.api}/openapi.json`)).body as {
      paths: Record<string, Record<string, Operation>>;
    };
    const problems: string[] = [];
    let checked = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const required = op["x-required-scopes"] ?? (op["x-required-scope"] ? [op["x-required-scope"]] : []);
        const family = path.split("/")[1]!;
        const urlFor = (ids: Record<string, string>) =>
          `${server.api}${path.replace(/\{(\w+)\}/g, (_, name: string) => (name === "id" && ids[family]) || "x_0")}`;
        const send = (headers: Record<string, string>, ids = own) =>
          // Raw: the matrix checks only who is refused, whatever each route answers when it serves.
          answerOf(urlFor(ids), {
            method: method.toUpperCase(),
            headers,
            ...(method === "get" || method === "delete" ? {} : { body: {} }),
          });
        const label = `${method.toUpperCase()} ${path}`;
        const codeOf = (res: { body: unknown }) =>
          (res.body as { error?: { code?: string } } | null)?.error?.code;

        const none = await send({});
        if (op["x-public"]) {
          // Reached without credentials by design (the plugin pairing routes): never a 401.
          if (none.status === 401) problems.push(`${label} is public but refused an anonymous caller`);
          checked++;
          continue;
        }
        if (none.status !== 401) problems.push(`${label} without credentials → ${none.status}`);

        const scoped = [
          {
            kind: "key with the scope",
            headers: bearer(await mintApiKey(server, alice, required.length ? required : ["*"])),
          },
          {
            kind: "OAuth token with the scope",
            headers: bearer(
              await mintOAuthToken(server, {
                sub: alice.userId,
                team: alice.teamId,
                scope: (required.length ? required : ["*"]).join(" "),
              }),
            ),
          },
        ];
        const unscoped = [
          {
            kind: "key without the scope",
            headers: bearer(await mintApiKey(server, alice, [unrelatedScope(required)])),
          },
          {
            kind: "OAuth token without the scope",
            headers: bearer(
              await mintOAuthToken(server, {
                sub: alice.userId,
                team: alice.teamId,
                scope: unrelatedScope(required),
              }),
            ),
          },
        ];
        const users = [
          { kind: "session", headers: sessionHeaders(server, alice) },
          { kind: "plugin token", headers: bearer(await mintPluginToken(server, alice.userId)) },
        ];

        for (const caller of [...scoped, ...unscoped]) {
          const res = await send(caller.headers);
          const expected = op["x-session-only"]
            ? "session_required"
            : unscoped.includes(caller) && required.length
              ? "missing_required_scope"
              : null;
          if (expected && (res.status !== 403 || codeOf(res) !== expected))
            problems.push(
              `${label} as ${caller.kind} → ${res.status} ${codeOf(res)}, expected 403 ${expected}`,
            );
          if (!expected && (res.status === 401 || codeOf(res) === "missing_required_scope"))
            problems.push(`${label} as ${caller.kind} → ${res.status} ${codeOf(res)}`);
        }
        for (const caller of users) {
          const res = await send(caller.headers);
          const expected = op["x-session-only"] && caller.kind !== "session" ? "session_required" : null;
          if (expected && codeOf(res) !== expected)
            problems.push(`${label} as ${caller.kind} → ${codeOf(res)}`);
          if (
            !expected &&
            (res.status === 401 || ["missing_required_scope", "session_required"].includes(codeOf(res)!))
          )
            problems.push(`${label} as ${caller.kind} → ${res.status} ${codeOf(res)}`);
        }

        // Another team's resource, asked for by a key of this team that holds every scope.
        if (path.includes("{id}") && foreign[family] && !op["x-session-only"]) {
          const res = await send(bearer(await mintApiKey(server, alice, ["*"])), foreign);
          // 403 or 404 once the body is valid; a 400 for the empty body comes before any lookup and reveals nothing.
          if (res.status < 400 || res.status >= 500)
            problems.push(`${label} on another team's ${family} → ${res.status}`);
        }
        checked++;
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  }, 300_000);
});
