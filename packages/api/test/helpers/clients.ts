import { randomBytes } from "node:crypto";
import { ApiKeyWithSecret, ErrorEnvelope, type Plan } from "@rubricon/contracts";
import { SignJWT } from "jose";
import { z } from "zod";
import { TEST_SECRETS, type TestServer } from "./server";

export interface TestUser {
  email: string;
  password: string;
  userId: string;
  teamId: string;
  cookie: string;
}

/**
 * What /api/auth/* answers. These are the dashboard's sign-in routes, outside the API contract, so their answers
 * are pinned here.
 */
const SessionUser = z.object({ id: z.string(), email: z.string(), name: z.string().nullable() });
export const SignedUp = z.object({ object: z.literal("session"), user: SessionUser, teamId: z.string() });
export const SignedIn = z.object({ object: z.literal("session"), user: SessionUser });
export const SignedOut = z.object({ object: z.literal("session"), signedOut: z.literal(true) });

function randomAddress(): string {
  const [a, b, c] = randomBytes(3);
  return `10.${a}.${b}.${c}`;
}

export function uniqueEmail(label = "user"): string {
  return `${label}-${randomBytes(5).toString("hex")}@example.com`;
}

/**
 * Signs up through /api/auth/sign-up and keeps the session cookie. The personal team is then put on `plan`
 * (default Pro, whose per-minute budget and unlimited evaluations suit tests that make many requests); tests of
 * limits pick the plan they test.
 */
export async function signUp(
  server: TestServer,
  label = "user",
  opts: { plan?: Plan } = {},
): Promise<TestUser> {
  const email = uniqueEmail(label);
  const password = "correct horse battery";
  const res = await call(SignedUp, `${server.url}/api/auth/sign-up`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Origin: server.url,
      // The suite's one server from dist/ sees every file's sign-ups: each comes from an address of its own, as
      // different people's do, so the per-address sign-up limit paces no test but its own.
      ...(server.target === "dist" ? { "X-Forwarded-For": randomAddress() } : {}),
    },
    body: { email, password, name: label },
  });
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
  const { user, teamId } = bodyOf(res);
  const cookie = res.headers.getSetCookie()[0]!.split(";")[0]!;
  await server.setPlan(teamId, opts.plan ?? "pro");
  return { email, password, userId: user.id, teamId, cookie };
}

/** Headers of a browser request from our own pages, signed in. */
export function sessionHeaders(server: TestServer, user: TestUser): Record<string, string> {
  return {
    Cookie: user.cookie,
    Origin: server.url,
    "Content-Type": "application/json",
  };
}

export async function mintApiKey(
  server: TestServer,
  user: TestUser,
  scopes: string[] = ["*"],
  teamId?: string,
): Promise<string> {
  const res = await call(ApiKeyWithSecret, `${server.api}/api-keys`, {
    method: "POST",
    headers: sessionHeaders(server, user),
    body: {
      name: "test key",
      scopes,
      ...(teamId ? { teamId } : {}),
    },
  });
  if (res.status !== 201) throw new Error(`key mint failed: ${res.status} ${JSON.stringify(res.body)}`);
  return bodyOf(res).key;
}

export function bearer(token: string): Record<string, string> {
  return {
    Authorization: `Bearer ${token}`,
    "Content-Type": "application/json",
  };
}

export async function mintOAuthToken(
  server: TestServer,
  claims: {
    sub: string;
    team: string;
    scope: string;
    aud?: string;
    ttlSeconds?: number;
    secret?: string;
  },
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ team: claims.team, scope: claims.scope })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(claims.sub)
    .setAudience(claims.aud ?? `${server.url}/api/v1`)
    .setIssuedAt(now)
    .setExpirationTime(now + (claims.ttlSeconds ?? 600))
    .sign(new TextEncoder().encode(claims.secret ?? TEST_SECRETS.OAUTH_JWT_SECRET));
}

export async function mintPluginToken(
  _server: TestServer,
  userId: string,
  opts: { ttlSeconds?: number; secret?: string } = {},
) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ typ: "plugin" })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(userId)
    .setIssuedAt(now)
    .setExpirationTime(now + (opts.ttlSeconds ?? 3600))
    .sign(new TextEncoder().encode(opts.secret ?? TEST_SECRETS.PLUGIN_JWT_SECRET));
}

/** What a test sends: a JSON-serialisable body, or a string sent as it is (e.g. malformed JSON). */
export interface CallInit {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** A 2xx answer whose body is the route's contract schema, parsed. */
export interface Answered<T> {
  ok: true;
  status: number;
  headers: Headers;
  body: T;
}

/** Any other answer; its body is the error envelope, parsed. */
export interface Refused {
  ok: false;
  status: number;
  headers: Headers;
  body: ErrorEnvelope;
}

export type Answer<T> = Answered<T> | Refused;

function send(url: string, init: CallInit): Promise<Response> {
  return fetch(url, {
    method: init.method ?? "GET",
    headers: init.headers,
    body:
      init.body === undefined
        ? undefined
        : typeof init.body === "string"
          ? init.body
          : JSON.stringify(init.body),
  });
}

/**
 * Calls a JSON route and parses what it answers: a 2xx with `schema` (the route's contract), anything else with
 * `ErrorEnvelope`. A body that is not exactly what its schema describes, including a field the schema does not
 * know, fails the test with the route and the issue. `z.never()` says the call must not succeed.
 */
export async function call<S extends z.ZodType>(
  schema: S,
  url: string,
  init: CallInit = {},
): Promise<Answer<z.output<S>>> {
  return readAnswer(schema, await send(url, init), `${init.method ?? "GET"} ${new URL(url).pathname}`);
}

/** Parses a response as `call` does; for responses that come from the app in-process rather than over HTTP. */
export async function readAnswer<S extends z.ZodType>(
  schema: S,
  res: Response,
  route = res.url || "the response",
): Promise<Answer<z.output<S>>> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${route} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  const answer = { status: res.status, headers: res.headers };
  if (res.ok) return { ok: true, ...answer, body: conform(schema, json, route, res.status) };
  return { ok: false, ...answer, body: conform(ErrorEnvelope, json, route, res.status) };
}

function conform<S extends z.ZodType>(schema: S, json: unknown, route: string, status: number): z.output<S> {
  const name = (schema.meta()?.id as string | undefined) ?? "its schema";
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new Error(
      `${route} answered ${status} with a body that is not ${name}:\n${z.prettifyError(parsed.error)}`,
    );
  const drift = firstDifference(json, parsed.data, "body");
  if (drift) throw new Error(`${route} answered ${status} with a body that is not exactly ${name}: ${drift}`);
  return parsed.data;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Where a parse changed the body: zod objects drop unknown keys and fill defaults, which would hide drift. */
function firstDifference(sent: unknown, parsed: unknown, path: string): string | null {
  if (Array.isArray(sent) && Array.isArray(parsed)) {
    for (let i = 0; i < sent.length; i++) {
      const found = firstDifference(sent[i], parsed[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (isRecord(sent) && isRecord(parsed)) {
    for (const key of Object.keys(sent)) {
      if (!(key in parsed)) return `${path}.${key} is not in the schema`;
      const found = firstDifference(sent[key], parsed[key], `${path}.${key}`);
      if (found) return found;
    }
    const added = Object.keys(parsed).find((key) => !(key in sent));
    return added === undefined ? null : `${path}.${added} was not sent; the schema adds it`;
  }
  return Object.is(sent, parsed)
    ? null
    : `${path} was ${JSON.stringify(sent)} but parses as ${JSON.stringify(parsed)}`;
}

/** The body of a success; a refusal fails the test with its error. */
export function bodyOf<T>(res: Answer<T>): T {
  if (!res.ok)
    throw new Error(
      `expected a success, got ${res.status} ${res.body.error.code}: ${res.body.error.message}`,
    );
  return res.body;
}

/** The error of a refusal; a success fails the test. */
export function errorOf(res: Answer<unknown>): ErrorEnvelope["error"] {
  if (res.ok) throw new Error(`expected a refusal, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.error;
}

/**
 * Calls a route whose answer is not a contract's JSON (the OpenAPI document, CSV, tRPC's wire format): the body
 * is the parsed JSON if it is JSON, else the text.
 */
export async function callRaw(
  url: string,
  init: CallInit = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const res = await send(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // leave as text
  }
  return { status: res.status, headers: res.headers, body };
}
