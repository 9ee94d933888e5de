import { ApiKeyList, ApiKeyWithSecret, DeletedObject, WhoAmI } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError, expectStatus } from "./helpers/assertions";
import { bearer, bodyOf, call, errorOf, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let user: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server, "keys");
});
afterAll(() => server?.close());

const keysUrl = () => `${server.api}/api-keys`;
const mint = (body: Record<string, unknown>, who: TestUser = user) =>
  call(ApiKeyWithSecret, keysUrl(), {
    method: "POST",
    headers: sessionHeaders(server, who),
    body,
  });
const listKeys = (who: TestUser = user) =>
  call(ApiKeyList, `${keysUrl()}?limit=100`, { headers: sessionHeaders(server, who) });

describe("minting", () => {
  it("shows the ak_live_ plaintext once and keeps only a prefix", async () => {
    const res = await mint({
      name: "CI",
      scopes: ["evaluations:read", "evaluations:read", "ratings:*"],
    });
    expectStatus(res, 201);
    const created = res.body;
    expect(created).toMatchObject({
      object: "api_key",
      name: "CI",
      teamId: user.teamId,
      scopes: ["evaluations:read", "ratings:*"],
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(created.id).toMatch(/^key_/);
    expect(created.key).toMatch(/^ak_live_[A-Za-z0-9_-]{30,}$/);
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(created.prefix.length).toBeGreaterThan("ak_live_".length);
    expect(created.prefix.length).toBeLessThan(created.key.length);

    const listed = await listKeys();
    expectStatus(listed, 200);
    const entry = listed.body.data.find((k) => k.id === created.id);
    expect(entry).toBeDefined();
    expect(entry!.prefix).toBe(created.prefix);
    for (const k of listed.body.data) expect(k).not.toHaveProperty("key");
    expect(JSON.stringify(listed.body)).not.toContain(created.key);

    const one = await call(z.never(), `${keysUrl()}/${created.id}`, {
      headers: sessionHeaders(server, user),
    });
    expect(one.status).not.toBe(200);
  });

  it("names an invalid scope by its index", async () => {
    const res = await mint({
      name: "bad",
      scopes: ["evaluations:read", "evaluations:delete"],
    });
    expectError(res, 400, {
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "scopes[1]",
    });
    const first = await mint({ name: "bad", scopes: ["everything"] });
    expectError(first, 400, {
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "scopes[0]",
    });
  });

  it("requires at least one scope and a name", async () => {
    expectError(await mint({ name: "none", scopes: [] }), 400, {
      type: "invalid_request_error",
      param: "scopes",
    });
    expectError(await mint({ scopes: ["*"] }), 400, {
      type: "invalid_request_error",
      code: "parameter_missing",
      param: "name",
    });
  });

  it("refuses an expiry in the past and keeps one in the future", async () => {
    const past = await mint({
      name: "old",
      scopes: ["*"],
      expiresAt: new Date(Date.now() - 60_000).toISOString(),
    });
    expectError(past, 400, {
      type: "invalid_request_error",
      param: "expiresAt",
    });
    expectError(await mint({ name: "old", scopes: ["*"], expiresAt: "tomorrow" }), 400, {
      type: "invalid_request_error",
      param: "expiresAt",
    });
    const at = new Date(Date.now() + 86_400_000).toISOString();
    const future = await mint({ name: "new", scopes: ["*"], expiresAt: at });
    expectStatus(future, 201);
    expect(new Date(future.body.expiresAt!).getTime()).toBe(new Date(at).getTime());
  });

  it("refuses a team the user is not in", async () => {
    const stranger = await signUp(server, "stranger");
    const res = await mint({
      name: "x",
      scopes: ["*"],
      teamId: stranger.teamId,
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(errorOf(res).param).toBe("teamId");
  });
});

describe("usage tracking", () => {
  it("records lastUsedAt and lastUsedIp after the key is used", async () => {
    const created = bodyOf(await mint({ name: "tracked", scopes: ["*"] }));
    const before = Date.now();
    expect(
      (
        await call(WhoAmI, `${server.api}/auth/whoami`, {
          headers: bearer(created.key),
        })
      ).status,
    ).toBe(200);
    const entry = bodyOf(await listKeys()).data.find((k) => k.id === created.id)!;
    expect(entry.lastUsedAt).not.toBeNull();
    expect(new Date(entry.lastUsedAt!).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(entry.lastUsedIp).toMatch(/^(127\.0\.0\.1|::ffff:127\.0\.0\.1|::1)$/);
  });
});

describe("revoking", () => {
  it("answers {id, deleted: true} and marks the key revoked", async () => {
    const created = bodyOf(await mint({ name: "doomed", scopes: ["*"] }));
    const res = await call(DeletedObject, `${keysUrl()}/${created.id}`, {
      method: "DELETE",
      headers: sessionHeaders(server, user),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.id, deleted: true });
    const entry = bodyOf(await listKeys()).data.find((k) => k.id === created.id)!;
    expect(entry.revokedAt).not.toBeNull();
    expectError(await call(WhoAmI, `${server.api}/auth/whoami`, { headers: bearer(created.key) }), 401, {
      type: "authentication_error",
      code: "api_key_revoked",
    });
  });

  it("answers 404 for an unknown key and for another user's key", async () => {
    const unknown = await call(DeletedObject, `${keysUrl()}/key_doesnotexist`, {
      method: "DELETE",
      headers: sessionHeaders(server, user),
    });
    expectError(unknown, 404, {
      type: "not_found_error",
      code: "api_key_not_found",
    });

    const other = await signUp(server, "other");
    const theirs = bodyOf(await mint({ name: "theirs", scopes: ["*"] }, other));
    const res = await call(DeletedObject, `${keysUrl()}/${theirs.id}`, {
      method: "DELETE",
      headers: sessionHeaders(server, user),
    });
    expectError(res, 404, {
      type: "not_found_error",
      code: "api_key_not_found",
    });
    expect((await call(WhoAmI, `${server.api}/auth/whoami`, { headers: bearer(theirs.key) })).status).toBe(
      200,
    );
  });

  it("lists only the caller's keys", async () => {
    const other = await signUp(server, "lister");
    await mint({ name: "mine", scopes: ["*"] }, other);
    const listed = await listKeys(other);
    expect(bodyOf(listed).data.map((k) => k.name)).toEqual(["mine"]);
  });
});
