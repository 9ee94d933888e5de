import { ConnectedAppList } from "@rubricon/contracts";
import { sha256Hex } from "@rubricon/core";
import { oauthGrants, oauthRecords } from "@rubricon/db";
import { and, eq } from "drizzle-orm";
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectStatus } from "./helpers/assertions";
import { call, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import { insecure, OAuthApp, REDIRECT } from "./helpers/oauth";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let user: TestUser;
let app: OAuthApp;
let as: oauth.AuthorizationServer;

const WhoAmI = z.object({ userId: z.string(), teamId: z.string(), principal: z.string() }).passthrough();

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server, "oauth");
  app = await OAuthApp.discover(server);
  as = app.as;
});
afterAll(() => server?.close());

const whoami = (token: string, base = server.api) =>
  call(WhoAmI, `${base}/auth/whoami`, { headers: { Authorization: `Bearer ${token}` } });

const decode = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString());

describe("metadata", () => {
  it("publishes the authorization server and both protected resources", async () => {
    expect(as.issuer).toBe(server.url);
    expect(as.code_challenge_methods_supported).toEqual(["S256"]);
    expect(as.registration_endpoint).toBe(`${server.url}/api/oauth/register`);
    for (const [path, resource] of [
      ["/api/v1", `${server.url}/api/v1`],
      ["/mcp", `${server.url}/mcp`],
    ] as const) {
      const res = await oauth.resourceDiscoveryRequest(new URL(resource), insecure);
      const meta = await oauth.processResourceDiscoveryResponse(new URL(resource), res);
      expect(meta.authorization_servers).toEqual([server.url]);
      expect(new URL(res.url).pathname).toBe(`/.well-known/oauth-protected-resource${path}`);
    }
  });
});

describe("authorization code with PKCE", () => {
  it("issues a 15-minute HS256 token for the chosen team that works on /api/v1, and refreshes with rotation", async () => {
    const client = await app.register();
    const flow = await app.authorize(client, user);
    expect(flow.details).toMatchObject({
      client: { clientId: client.client_id, name: "Acme Sync", redirectHost: "127.0.0.1:9" },
      scopes: [
        { scope: "evaluations:read", description: expect.any(String) },
        { scope: "templates:read", description: expect.any(String) },
      ],
      teams: [{ id: user.teamId }],
    });
    const tokens = await app.exchange(client, flow);
    expect(tokens.token_type.toLowerCase()).toBe("bearer");
    expect(tokens.expires_in).toBeLessThanOrEqual(900);
    expect(tokens.refresh_token).toBeTruthy();
    const claims = decode(tokens.access_token);
    expect(JSON.parse(Buffer.from(tokens.access_token.split(".")[0]!, "base64url").toString()).alg).toBe(
      "HS256",
    );
    expect(claims).toMatchObject({
      sub: user.userId,
      team: user.teamId,
      aud: `${server.url}/api/v1`,
      scope: "evaluations:read templates:read",
    });
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(900);

    const me = await whoami(tokens.access_token);
    expectStatus(me, 200);
    expect(me.body).toMatchObject({ userId: user.userId, teamId: user.teamId, principal: "oauth" });
    // Scopes hold: reading is granted, writing is not.
    const list = await fetch(`${server.api}/evaluations`, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(list.status).toBe(200);
    const write = await fetch(`${server.api}/templates`, {
      method: "POST",
      headers: { Authorization: `Bearer ${tokens.access_token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "x" }),
    });
    expect(write.status).toBe(403);
    expect((await write.json()).error.code).toBe("missing_required_scope");

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
    );
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expectStatus(await whoami(refreshed.access_token), 200);

    // The old refresh token comes back: the whole grant ends, the new refresh and access tokens with it.
    await expect(
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
      ),
    ).rejects.toMatchObject({ error: "invalid_grant" });
    await expect(
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token!, insecure),
      ),
    ).rejects.toMatchObject({ error: "invalid_grant" });
    const after = await whoami(refreshed.access_token);
    expect(after.status).toBe(401);
  });

  it("stores each record under its model with its lifetime, and never takes a code for a refresh token", async () => {
    const client = await app.register();
    const flow = await app.authorize(client, user);
    const code = flow.callback.searchParams.get("code")!;
    const [stored] = await server.database.db
      .select()
      .from(oauthRecords)
      .where(and(eq(oauthRecords.model, "AuthorizationCode"), eq(oauthRecords.key, sha256Hex(code))));
    expect(stored).toBeDefined();
    // A code lives 60 s.
    const lifetime = stored!.expiresAt!.getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(45_000);
    expect(lifetime).toBeLessThanOrEqual(60_000);

    // The unspent code, sent as a refresh token without its PKCE verifier, is refused.
    const asRefresh = await fetch(app.as.token_endpoint!, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: code,
        client_id: client.client_id,
      }),
    });
    expect(asRefresh.status).toBe(400);
    expect(await asRefresh.json()).toMatchObject({ error: "invalid_grant" });

    const tokens = await app.exchange(client, flow);
    expect(tokens.expires_in).toBeGreaterThan(0);
    const models = new Set((await server.database.db.select().from(oauthRecords)).map((r) => r.model));
    for (const model of ["AuthorizationCode", "RefreshToken", "Client", "Grant"])
      expect(models).toContain(model);
    expect(models).not.toContain("");
  });

  it("binds the audience: an /mcp token fails on /api/v1", async () => {
    const client = await app.register();
    const tokens = await app.exchange(
      client,
      await app.authorize(client, user, { resource: `${server.url}/mcp` }),
    );
    expect(decode(tokens.access_token).aud).toBe(`${server.url}/mcp`);
    const res = await whoami(tokens.access_token);
    expect(res.status).toBe(401);
  });

  it("refuses plain PKCE, a missing challenge and a redirect URI that is not registered exactly", async () => {
    const client = await app.register();
    const base = () => {
      const url = new URL(as.authorization_endpoint!);
      url.searchParams.set("client_id", client.client_id);
      url.searchParams.set("response_type", "code");
      url.searchParams.set("scope", "evaluations:read");
      url.searchParams.set("state", "s1");
      return url;
    };
    const plain = base();
    plain.searchParams.set("redirect_uri", REDIRECT);
    plain.searchParams.set("code_challenge", "a".repeat(43));
    plain.searchParams.set("code_challenge_method", "plain");
    const plainRes = await fetch(plain, { redirect: "manual", headers: { Cookie: user.cookie } });
    expect(new URL(plainRes.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");

    const none = base();
    none.searchParams.set("redirect_uri", REDIRECT);
    const noneRes = await fetch(none, { redirect: "manual", headers: { Cookie: user.cookie } });
    expect(new URL(noneRes.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");

    const other = base();
    other.searchParams.set("redirect_uri", `${REDIRECT}/extra`);
    other.searchParams.set("code_challenge", "a".repeat(43));
    other.searchParams.set("code_challenge_method", "S256");
    const otherRes = await fetch(other, { redirect: "manual", headers: { Cookie: user.cookie } });
    // Never redirected to an unregistered URI: the error is shown by the server itself.
    expect(otherRes.status).toBe(400);
    expect(otherRes.headers.get("location")).toBeNull();
  });

  it("answers access_denied to the app when the user declines", async () => {
    const client = await app.register();
    const flow = await app.authorize(client, user, { decision: "deny" });
    expect(flow.callback.searchParams.get("error")).toBe("access_denied");
    expect(flow.callback.searchParams.get("state")).toBe(flow.state);
  });

  it("serves confidential clients, and stores neither their secret nor tokens in plaintext", async () => {
    const client = await app.register({ token_endpoint_auth_method: "client_secret_basic" });
    const secret = client.client_secret as string;
    expect(secret).toBeTruthy();
    const flow = await app.authorize(client, user);
    const code = flow.callback.searchParams.get("code")!;
    const tokens = await app.exchange(client, flow, oauth.ClientSecretBasic(secret));
    expectStatus(await whoami(tokens.access_token), 200);

    const rows = await server.database.db.select().from(oauthRecords);
    const dump = JSON.stringify(rows);
    for (const plaintext of [secret, code, tokens.refresh_token!]) expect(dump).not.toContain(plaintext);

    // RFC 7009: the app revokes its refresh token; it no longer refreshes, and the access token lives out its time.
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(
        as,
        client,
        oauth.ClientSecretBasic(secret),
        tokens.refresh_token!,
        insecure,
      ),
    );
    await expect(
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(
          as,
          client,
          oauth.ClientSecretBasic(secret),
          tokens.refresh_token!,
          insecure,
        ),
      ),
    ).rejects.toMatchObject({ error: "invalid_grant" });
    expectStatus(await whoami(tokens.access_token), 200);
  });
});

describe("connected apps", () => {
  it("lists the app for the team chosen, and disconnecting ends its tokens at once", async () => {
    const other = await signUp(server, "apps");
    const client = await app.register({ client_name: "Disconnect Me" });
    const tokens = await app.exchange(client, await app.authorize(client, other));
    const listed = await call(ConnectedAppList, `${server.api}/oauth/connected-apps`, {
      headers: sessionHeaders(server, other),
    });
    expectStatus(listed, 200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        object: "connected_app",
        clientId: client.client_id,
        name: "Disconnect Me",
        teamIds: [other.teamId],
        redirectHosts: ["127.0.0.1:9"],
        scopes: ["evaluations:read", "templates:read"],
        resources: [`${server.url}/api/v1`],
      }),
    ]);
    // Only a session manages them.
    const byToken = await fetch(`${server.api}/oauth/connected-apps`, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(byToken.status).toBe(403);

    const removed = await call(z.any(), `${server.api}/oauth/connected-apps/${client.client_id}`, {
      method: "DELETE",
      headers: sessionHeaders(server, other),
    });
    expectStatus(removed, 200);
    expect(removed.body).toEqual({ id: client.client_id, object: "connected_app", deleted: true });
    expect((await whoami(tokens.access_token)).status).toBe(401);
    await expect(
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
      ),
    ).rejects.toMatchObject({ error: "invalid_grant" });
    const again = await call(z.any(), `${server.api}/oauth/connected-apps/${client.client_id}`, {
      method: "DELETE",
      headers: sessionHeaders(server, other),
    });
    expect(again.status).toBe(404);
    const grants = await server.database.db.select().from(oauthGrants);
    expect(grants.find((g) => g.clientId === client.client_id)?.revokedReason).toBe("user");
  });
});

describe("dynamic registration", () => {
  it("refuses a registration without redirect URIs with an OAuth error, and limits registrations per address", async () => {
    const fresh = await startTestServer({
      sources: "it counts registrations from one address from zero, on a server of its own",
    });
    try {
      const registerOne = (body: Record<string, unknown>) =>
        fetch(`${fresh.url}/api/oauth/register`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
      const bad = await registerOne({ client_name: "No redirect" });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ error: "invalid_redirect_uri" });
      expect(bad.headers.get("x-request-id")).toBeTruthy();

      // Plain http only back to the user's own machine (OAuth 2.1); https anywhere, loopback over http.
      for (const uri of [
        "http://evil.example/cb",
        "http://10.0.0.1/cb",
        "http://127.0.0.1.evil.example/cb",
      ]) {
        const refused = await registerOne({
          redirect_uris: [REDIRECT, uri],
          token_endpoint_auth_method: "none",
        });
        expect(refused.status).toBe(400);
        const body = (await refused.json()) as { error: string; error_description: string };
        expect(body.error).toBe("invalid_redirect_uri");
        expect(body.error_description).toContain("loopback");
      }
      for (const uri of ["https://app.example/cb", "http://localhost:8765/cb", "http://[::1]:8765/cb"]) {
        const accepted = await registerOne({ redirect_uris: [uri], token_endpoint_auth_method: "none" });
        expect(accepted.status).toBe(201);
        expect(((await accepted.json()) as { redirect_uris: string[] }).redirect_uris).toEqual([uri]);
      }
      // Where sign-out lands is held to the same rule.
      for (const uri of ["http://evil.example/", "http://10.0.0.1/bye"]) {
        const refused = await registerOne({
          redirect_uris: [REDIRECT],
          post_logout_redirect_uris: ["https://app.example/bye", uri],
          token_endpoint_auth_method: "none",
        });
        expect(refused.status).toBe(400);
        const body = (await refused.json()) as { error: string; error_description: string };
        expect(body.error).toBe("invalid_client_metadata");
        expect(body.error_description).toContain("post_logout_redirect_uris");
      }
      const signOut = await registerOne({
        redirect_uris: [REDIRECT],
        post_logout_redirect_uris: ["https://app.example/bye", "http://127.0.0.1:8765/bye"],
        token_endpoint_auth_method: "none",
      });
      expect(signOut.status).toBe(201);

      const statuses: number[] = [];
      for (let i = 0; i < 10; i++)
        statuses.push(
          (await registerOne({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })).status,
        );
      expect(statuses.every((s) => s === 201)).toBe(true);
      const over = await registerOne({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" });
      expect(over.status).toBe(429);
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await over.json()).toMatchObject({ error: "rate_limit_exceeded" });
    } finally {
      await fresh.close();
    }
  });
});
