import { randomBytes } from "node:crypto";
import type { Plan } from "@rubricon/contracts";
import { setTeamPlan } from "@rubricon/core";
import { SignJWT } from "jose";
import { TEST_SECRETS, type TestServer } from "./server";

export interface TestUser {
  email: string;
  password: string;
  userId: string;
  teamId: string;
  cookie: string;
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
  const res = await fetch(`${server.url}/api/auth/sign-up`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: server.url },
    body: JSON.stringify({ email, password, name: label }),
  });
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { user: { id: string }; teamId: string };
  const cookie = res.headers.getSetCookie()[0]!.split(";")[0]!;
  const { services } = server.app;
  await setTeamPlan(
    { db: services.db, clock: services.clock, baseUrl: services.env.baseUrl },
    body.teamId,
    opts.plan ?? "pro",
  );
  return { email, password, userId: body.user.id, teamId: body.teamId, cookie };
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
  const res = await fetch(`${server.api}/api-keys`, {
    method: "POST",
    headers: sessionHeaders(server, user),
    body: JSON.stringify({
      name: "test key",
      scopes,
      ...(teamId ? { teamId } : {}),
    }),
  });
  if (res.status !== 201) throw new Error(`key mint failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
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

export async function call(
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: unknown;
  } = {},
  // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies freely and assert each field they use
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url, {
    method: init.method ?? "GET",
    headers: init.headers,
    body:
      init.body === undefined
        ? undefined
        : typeof init.body === "string"
          ? init.body
          : JSON.stringify(init.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // leave as text
  }
  return { status: res.status, headers: res.headers, body };
}
