import { ApiKeyWithSecret, DeletedObject, EvaluationList, Team, WhoAmI } from "@rubricon/contracts";
import { fixedClock } from "@rubricon/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation, expectError, expectStatus } from "./helpers/assertions";
import {
  bearer,
  bodyOf,
  call,
  mintApiKey,
  mintOAuthToken,
  mintPluginToken,
  sessionHeaders,
  signUp,
  type TestUser,
} from "./helpers/clients";
import { startTestServer, TEST_SECRETS, type TestServer } from "./helpers/server";

let server: TestServer;
let alice: TestUser;
let aliceKey: string;

beforeAll(async () => {
  server = await startTestServer();
  alice = await signUp(server, "alice");
  aliceKey = await mintApiKey(server, alice, ["evaluations:read"]);
});
afterAll(() => server?.close());

const whoami = (headers: Record<string, string>, target = server) =>
  call(WhoAmI, `${target.api}/auth/whoami`, { headers });

async function createKey(target: TestServer, user: TestUser, body: Record<string, unknown>) {
  const res = await call(ApiKeyWithSecret, `${target.api}/api-keys`, {
    method: "POST",
    headers: sessionHeaders(target, user),
    body,
  });
  expectStatus(res, 201);
  return res.body;
}

describe("missing and malformed credentials", () => {
  it("answers no credentials with 401 authentication_required", async () => {
    expectError(await whoami({}), 401, {
      type: "authentication_error",
      code: "authentication_required",
    });
  });

  it("answers a non-bearer Authorization header with 401", async () => {
    expectError(await whoami({ Authorization: "Basic dXNlcjpwYXNz" }), 401, {
      type: "authentication_error",
    });
  });

  it("answers a garbage bearer with 401", async () => {
    expectError(await whoami(bearer("garbage")), 401, {
      type: "authentication_error",
      code: "invalid_api_key",
    });
    expectError(await whoami(bearer("a.b.c")), 401, {
      type: "authentication_error",
      code: "invalid_access_token",
    });
  });

  it("answers an unknown ak_live_ key with 401 invalid_api_key", async () => {
    const res = await whoami(bearer(`ak_live_${"x".repeat(43)}`));
    expectError(res, 401, {
      type: "authentication_error",
      code: "invalid_api_key",
    });
  });
});

describe("API keys", () => {
  it("authenticate as the key's user and team with its scopes", async () => {
    const res = await whoami(bearer(aliceKey));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      principal: "api_key",
      userId: alice.userId,
      teamId: alice.teamId,
      scopes: ["evaluations:read"],
    });
  });

  it("stop working once revoked: 401 api_key_revoked", async () => {
    const { id, key } = await createKey(server, alice, {
      name: "to revoke",
      scopes: ["*"],
    });
    expect((await whoami(bearer(key))).status).toBe(200);
    const revoked = await call(DeletedObject, `${server.api}/api-keys/${id}`, {
      method: "DELETE",
      headers: sessionHeaders(server, alice),
    });
    expect(revoked.status).toBe(200);
    expectError(await whoami(bearer(key)), 401, {
      type: "authentication_error",
      code: "api_key_revoked",
    });
  });
});

describe("API key expiry", () => {
  const clock = fixedClock(new Date());
  let clocked: TestServer;
  beforeAll(async () => {
    clocked = await startTestServer({ clock });
  });
  afterAll(() => clocked?.close());

  it("works until expiresAt and then answers 401 api_key_expired", async () => {
    const user = await signUp(clocked, "expiry");
    const expiresAt = new Date(clock.now().getTime() + 60 * 60 * 1000);
    const { key } = await createKey(clocked, user, {
      name: "short-lived",
      scopes: ["*"],
      expiresAt: expiresAt.toISOString(),
    });
    expect((await whoami(bearer(key), clocked)).status).toBe(200);
    clock.advance(59 * 60 * 1000);
    expect((await whoami(bearer(key), clocked)).status).toBe(200);
    clock.advance(2 * 60 * 1000);
    expectError(await whoami(bearer(key), clocked), 401, {
      type: "authentication_error",
      code: "api_key_expired",
    });
    // The session lives on; only the key expired.
    expect(bodyOf(await whoami(sessionHeaders(clocked, user), clocked)).principal).toBe("session");
  });
});

describe("resolution order", () => {
  it("lets the session cookie win over a bearer header", async () => {
    const bob = await signUp(server, "bob");
    const res = await whoami({ ...bearer(aliceKey), Cookie: bob.cookie });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      principal: "session",
      userId: bob.userId,
    });
    expect(res.body.scopes).toBeUndefined();
  });

  it("does not fall through to the bearer when the cookie is stale", async () => {
    const res = await whoami({
      ...bearer(aliceKey),
      Cookie: "rubricon_session=not-a-session",
    });
    expectError(res, 401, {
      type: "authentication_error",
      code: "invalid_session",
    });
  });
});

describe("OAuth access tokens", () => {
  const claims = () => ({
    sub: alice.userId,
    team: alice.teamId,
    scope: "evaluations:read evaluations:write",
  });

  it("authenticate with the API audience, carrying the scope claim", async () => {
    const token = await mintOAuthToken(server, claims());
    const res = await whoami(bearer(token));
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      principal: "oauth",
      userId: alice.userId,
      teamId: alice.teamId,
      scopes: ["evaluations:read", "evaluations:write"],
    });
    expect(res.body.teamIds).toEqual([alice.teamId]);
  });

  it("are refused for another audience", async () => {
    const token = await mintOAuthToken(server, {
      ...claims(),
      aud: `${server.url}/mcp`,
    });
    expectError(await whoami(bearer(token)), 401, {
      type: "authentication_error",
      code: "invalid_access_token",
    });
  });

  it("are refused when they live longer than 15 minutes", async () => {
    const token = await mintOAuthToken(server, {
      ...claims(),
      ttlSeconds: 15 * 60 + 60,
    });
    expectError(await whoami(bearer(token)), 401, {
      type: "authentication_error",
      code: "invalid_access_token",
    });
    const atLimit = await mintOAuthToken(server, {
      ...claims(),
      ttlSeconds: 15 * 60,
    });
    expect((await whoami(bearer(atLimit))).status).toBe(200);
  });

  it("are refused once expired", async () => {
    const token = await mintOAuthToken(server, { ...claims(), ttlSeconds: -5 });
    expectError(await whoami(bearer(token)), 401, {
      type: "authentication_error",
      code: "invalid_access_token",
    });
  });

  it("are refused when signed with the plugin secret", async () => {
    const token = await mintOAuthToken(server, {
      ...claims(),
      secret: TEST_SECRETS.PLUGIN_JWT_SECRET,
    });
    expectError(await whoami(bearer(token)), 401, {
      type: "authentication_error",
      code: "invalid_access_token",
    });
  });

  it("are refused when signed with an unknown secret", async () => {
    const token = await mintOAuthToken(server, {
      ...claims(),
      secret: "some-other-secret-0123456789abcdef0123",
    });
    expectError(await whoami(bearer(token)), 401, {
      type: "authentication_error",
      code: "invalid_access_token",
    });
  });
});

describe("plugin tokens", () => {
  it("act as the user across all their teams, without scopes", async () => {
    const carol = await signUp(server, "carol");
    const team = await call(Team, `${server.api}/teams`, {
      method: "POST",
      headers: sessionHeaders(server, carol),
      body: { name: "Second" },
    });
    expectStatus(team, 201);
    const token = await mintPluginToken(server, carol.userId);

    const me = await whoami(bearer(token));
    expectStatus(me, 200);
    expect(me.body).toMatchObject({
      principal: "plugin",
      userId: carol.userId,
      teamId: carol.teamId,
    });
    expect(me.body.scopes).toBeUndefined();
    expect([...me.body.teamIds].sort()).toEqual([carol.teamId, team.body.id].sort());

    const onPersonal = await createEvaluation(server.api, bearer(token));
    const onSecond = await createEvaluation(server.api, bearer(token), {
      name: "Other team",
      type: "SSE",
      teamId: team.body.id,
    });
    expect(onPersonal.teamId).toBe(carol.teamId);
    expect(onSecond.teamId).toBe(team.body.id);
    const list = await call(EvaluationList, `${server.api}/evaluations`, {
      headers: bearer(token),
    });
    expect(
      bodyOf(list)
        .data.map((e) => e.id)
        .sort(),
    ).toEqual([onPersonal.id, onSecond.id].sort());
  });

  it("are refused when signed with the OAuth secret", async () => {
    const token = await mintPluginToken(server, alice.userId, {
      secret: TEST_SECRETS.OAUTH_JWT_SECRET,
    });
    expectError(await whoami(bearer(token)), 401, {
      type: "authentication_error",
      code: "invalid_access_token",
    });
  });

  it("are refused when they live longer than 7 days", async () => {
    const token = await mintPluginToken(server, alice.userId, {
      ttlSeconds: 7 * 24 * 3600 + 3600,
    });
    expectError(await whoami(bearer(token)), 401, {
      type: "authentication_error",
      code: "invalid_access_token",
    });
  });

  it("are refused once expired", async () => {
    const token = await mintPluginToken(server, alice.userId, {
      ttlSeconds: -5,
    });
    expectError(await whoami(bearer(token)), 401, {
      type: "authentication_error",
      code: "invalid_access_token",
    });
  });
});

describe("whoami", () => {
  it("reports a session principal without scopes", async () => {
    const res = await whoami(sessionHeaders(server, alice));
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      object: "whoami",
      principal: "session",
      userId: alice.userId,
      email: alice.email,
      teamId: alice.teamId,
    });
    expect("scopes" in res.body).toBe(false);
  });

  it("reports scopes for an API key, and only then", async () => {
    const key = bodyOf(await whoami(bearer(aliceKey)));
    expect(key.principal).toBe("api_key");
    expect(key.scopes).toEqual(["evaluations:read"]);
    const plugin = bodyOf(await whoami(bearer(await mintPluginToken(server, alice.userId))));
    expect(plugin.principal).toBe("plugin");
    expect("scopes" in plugin).toBe(false);
  });
});
