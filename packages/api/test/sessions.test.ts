import { Evaluation, EvaluationList, TeamList, TeamMemberList, WhoAmI } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createEvaluation, expectError, expectStatus, SSE_BODY } from "./helpers/assertions";
import {
  bodyOf,
  call,
  SignedIn,
  SignedOut,
  SignedUp,
  sessionHeaders,
  signUp,
  type TestUser,
  uniqueEmail,
} from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let user: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server, "session", { plan: "free" });
});
afterAll(() => server?.close());

const authPost = <S extends z.ZodType>(
  schema: S,
  action: string,
  body: unknown,
  headers: Record<string, string> = {},
) =>
  call(schema, `${server.url}/api/auth/${action}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Origin: server.url,
      ...headers,
    },
    body,
  });

function sessionCookieOf(res: { headers: Headers }): string {
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("rubricon_session="));
  expect(cookie).toBeDefined();
  return cookie!;
}

describe("CSRF on cookie-authenticated writes", () => {
  const create = (headers: Record<string, string>) =>
    call(Evaluation, `${server.api}/evaluations`, {
      method: "POST",
      headers,
      body: SSE_BODY,
    });

  it("refuses a cookie POST without Origin", async () => {
    const res = await create({
      Cookie: user.cookie,
      "Content-Type": "application/json",
    });
    expectError(res, 403, {
      type: "authorization_error",
      code: "cross_site_request",
    });
  });

  it("refuses a cookie POST from a foreign Origin", async () => {
    const res = await create({
      Cookie: user.cookie,
      "Content-Type": "application/json",
      Origin: "https://evil.example",
    });
    expectError(res, 403, {
      type: "authorization_error",
      code: "cross_site_request",
    });
  });

  it("refuses a foreign Referer when there is no Origin", async () => {
    const res = await create({
      Cookie: user.cookie,
      "Content-Type": "application/json",
      Referer: "https://evil.example/page",
    });
    expectError(res, 403, {
      type: "authorization_error",
      code: "cross_site_request",
    });
  });

  it("accepts a cookie POST from the server's own origin", async () => {
    expect((await create(sessionHeaders(server, user))).status).toBe(201);
  });

  it("does not check the origin of safe methods", async () => {
    const res = await call(EvaluationList, `${server.api}/evaluations`, {
      headers: { Cookie: user.cookie, Origin: "https://evil.example" },
    });
    expect(res.status).toBe(200);
  });

  it("creates nothing when refused", async () => {
    const before = bodyOf(
      await call(EvaluationList, `${server.api}/evaluations?limit=100`, {
        headers: { Cookie: user.cookie },
      }),
    ).data.length;
    await create({
      Cookie: user.cookie,
      "Content-Type": "application/json",
      Origin: "https://evil.example",
    });
    const after = bodyOf(
      await call(EvaluationList, `${server.api}/evaluations?limit=100`, {
        headers: { Cookie: user.cookie },
      }),
    ).data.length;
    expect(after).toBe(before);
  });
});

describe("sign-up", () => {
  it("sets an HttpOnly, SameSite=Lax session cookie without Secure over http", async () => {
    const res = await authPost(SignedUp, "sign-up", {
      email: uniqueEmail("cookie"),
      password: "long enough pw",
    });
    expect(res.status).toBe(201);
    const attrs = sessionCookieOf(res)
      .split(";")
      .map((a) => a.trim().toLowerCase());
    expect(attrs).toContain("httponly");
    expect(attrs).toContain("samesite=lax");
    expect(attrs).toContain("path=/");
    expect(attrs).not.toContain("secure");
    expect(attrs.find((a) => a.startsWith("max-age="))).toMatch(/^max-age=[1-9]\d*$/);
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("refuses a duplicate email, case-insensitively, with email_taken", async () => {
    const res = await authPost(SignedUp, "sign-up", {
      email: user.email.toUpperCase(),
      password: "another password",
    });
    expectError(res, 400, {
      type: "invalid_request_error",
      code: "email_taken",
      param: "email",
    });
  });

  it("validates the body", async () => {
    expectError(
      await authPost(SignedUp, "sign-up", {
        email: "not-an-email",
        password: "long enough pw",
      }),
      400,
      {
        type: "invalid_request_error",
        param: "email",
      },
    );
    expectError(await authPost(SignedUp, "sign-up", { email: uniqueEmail(), password: "short" }), 400, {
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "password",
    });
    expectError(await authPost(SignedUp, "sign-up", { email: uniqueEmail() }), 400, {
      type: "invalid_request_error",
      code: "parameter_missing",
      param: "password",
    });
    expectError(await authPost(SignedUp, "sign-up", "{nope"), 400, {
      type: "invalid_request_error",
      code: "invalid_json",
    });
  });

  it("refuses a sign-up posted from another site", async () => {
    const res = await authPost(
      SignedUp,
      "sign-up",
      { email: uniqueEmail(), password: "long enough pw" },
      { Origin: "https://evil.example" },
    );
    expectError(res, 403, {
      type: "authorization_error",
      code: "cross_site_request",
    });
  });

  it("creates a personal team on the free plan owned by the user", async () => {
    const teams = await call(TeamList, `${server.api}/teams`, {
      headers: sessionHeaders(server, user),
    });
    expectStatus(teams, 200);
    expect(teams.body.data).toHaveLength(1);
    expect(teams.body.data[0]).toMatchObject({
      id: user.teamId,
      plan: "free",
      role: "owner",
    });
    const members = await call(TeamMemberList, `${server.api}/teams/${user.teamId}/members`, {
      headers: sessionHeaders(server, user),
    });
    expect(bodyOf(members).data).toEqual([
      expect.objectContaining({
        userId: user.userId,
        email: user.email,
        role: "owner",
      }),
    ]);
  });
});

describe("sign-in and sign-out", () => {
  it("signs in with the right password and gets a working session", async () => {
    const res = await authPost(SignedIn, "sign-in", {
      email: user.email,
      password: user.password,
    });
    expectStatus(res, 200);
    expect(res.body.user.id).toBe(user.userId);
    const cookie = sessionCookieOf(res).split(";")[0]!;
    const me = await call(WhoAmI, `${server.api}/auth/whoami`, {
      headers: { Cookie: cookie },
    });
    expect(me.body).toMatchObject({
      principal: "session",
      userId: user.userId,
    });
  });

  it("refuses a wrong password and an unknown email alike with invalid_credentials", async () => {
    const wrong = await authPost(SignedIn, "sign-in", {
      email: user.email,
      password: "wrong password",
    });
    expectError(wrong, 401, {
      type: "authentication_error",
      code: "invalid_credentials",
    });
    expect(wrong.headers.getSetCookie()).toHaveLength(0);
    const unknown = await authPost(SignedIn, "sign-in", {
      email: uniqueEmail("ghost"),
      password: "wrong password",
    });
    expectError(unknown, 401, {
      type: "authentication_error",
      code: "invalid_credentials",
    });
    expect(unknown.body.error.message).toBe(wrong.body.error.message);
  });

  it("signs out: the cookie is cleared and the session no longer works", async () => {
    const signedIn = await authPost(SignedIn, "sign-in", {
      email: user.email,
      password: user.password,
    });
    const cookie = sessionCookieOf(signedIn).split(";")[0]!;
    expect((await call(WhoAmI, `${server.api}/auth/whoami`, { headers: { Cookie: cookie } })).status).toBe(
      200,
    );

    const out = await authPost(SignedOut, "sign-out", {}, { Cookie: cookie });
    expect(out.status).toBe(200);
    expect(sessionCookieOf(out)).toMatch(/Max-Age=0/);

    const after = await call(WhoAmI, `${server.api}/auth/whoami`, {
      headers: { Cookie: cookie },
    });
    expectError(after, 401, {
      type: "authentication_error",
      code: "invalid_session",
    });
    // Other sessions of the same user are untouched.
    expect(
      (
        await call(WhoAmI, `${server.api}/auth/whoami`, {
          headers: { Cookie: user.cookie },
        })
      ).status,
    ).toBe(200);
  });

  it("answers other methods and actions on /api/auth like the API does", async () => {
    const get = await call(SignedIn, `${server.url}/api/auth/sign-in`);
    expectError(get, 405, {
      type: "invalid_request_error",
      code: "method_not_allowed",
    });
    expect(get.headers.get("allow")).toBe("POST");
    expectError(await authPost(z.never(), "reset", {}), 404, {
      type: "not_found_error",
      code: "route_not_found",
    });
  });

  it("keeps session writes working after sign-in", async () => {
    const evaluation = await createEvaluation(server.api, sessionHeaders(server, user));
    expect(evaluation.teamId).toBe(user.teamId);
  });
});
