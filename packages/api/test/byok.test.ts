import { type ProviderServer, startProviderServer } from "@rubricon/agents/testing";
import { ByokProbeResult, ByokSettings, ByokTestResult } from "@rubricon/contracts";
import { idempotencyRecords, schema, teamMembers } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError, expectStatus } from "./helpers/assertions";
import { bearer, call, mintApiKey, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

const KEYS = {
  openai: "sk-proj-OPENAI-secret-value-A1b2",
  anthropic: "sk-ant-ANTHROPIC-secret-value-C3d4",
  google: "AIzaGOOGLE-secret-value-E5f6",
  wrong: "sk-proj-WRONG-secret-value-Z9y8",
};
const SECRET_MARKERS = [
  "OPENAI-secret-value",
  "ANTHROPIC-secret-value",
  "GOOGLE-secret-value",
  "WRONG-secret-value",
];

let server: TestServer;
let privateServer: TestServer;
const providers: Record<"openai" | "anthropic" | "google", ProviderServer> = {} as never;

// Everything the app prints and answers, to prove no key ever shows up in either.
const logged: string[] = [];
const answered: string[] = [];
const restore: (() => void)[] = [];

beforeAll(async () => {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => {
      stream.write = write;
    });
  }
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[method];
    console[method] = (...args: unknown[]) => {
      logged.push(
        args
          .map((a) =>
            a instanceof Error
              ? `${a.message} ${a.stack} ${JSON.stringify(a)}`
              : typeof a === "string"
                ? a
                : JSON.stringify(a),
          )
          .join(" "),
      );
      original(...args);
    };
    restore.push(() => {
      console[method] = original;
    });
  }
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const res = await realFetch(input, init);
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith(server?.url ?? "\0") || url.startsWith(privateServer?.url ?? "\0")) {
      answered.push(`${[...res.headers.entries()].join(";")} ${await res.clone().text()}`);
    }
    return res;
  };
  restore.push(() => {
    globalThis.fetch = realFetch;
  });

  providers.openai = await startProviderServer("openai", { apiKey: KEYS.openai });
  providers.anthropic = await startProviderServer("anthropic", { apiKey: KEYS.anthropic });
  providers.google = await startProviderServer("google", { apiKey: KEYS.google });
  privateServer = await startTestServer({
    env: {
      AUTOUSER_ALLOW_PRIVATE_URLS: "true",
      AUTOUSER_PROVIDER: "openai",
      AUTOUSER_MODEL: "gpt-4o-mini",
      AUTOUSER_API_KEY: "sk-platform-OPERATOR-secret",
    },
  });
  server = await startTestServer();
});

afterAll(async () => {
  await Promise.all([
    server?.close(),
    privateServer?.close(),
    ...Object.values(providers).map((p) => p.close()),
  ]);
  for (const undo of restore) undo();
  expect(answered.length).toBeGreaterThan(40);
  const everything = [...logged, ...answered].join("\n");
  for (const marker of [...SECRET_MARKERS, "OPERATOR-secret"]) expect(everything).not.toContain(marker);
});

const url = (s: TestServer, path = "", query = "") => `${s.api}/settings/byok${path}${query}`;
const get = (s: TestServer, headers: Record<string, string>, query = "") =>
  call(ByokSettings, url(s, "", query), { headers });
const put = (s: TestServer, user: TestUser, body: unknown) =>
  call(ByokSettings, url(s), { method: "PUT", headers: sessionHeaders(s, user), body });
const patch = (s: TestServer, user: TestUser, body: unknown) =>
  call(ByokSettings, url(s), { method: "PATCH", headers: sessionHeaders(s, user), body });
const del = (s: TestServer, user: TestUser, query = "") =>
  call(ByokSettings, url(s, "", query), { method: "DELETE", headers: sessionHeaders(s, user) });
const testKey = (s: TestServer, user: TestUser, body: unknown = {}) =>
  call(ByokTestResult, url(s, "/test"), { method: "POST", headers: sessionHeaders(s, user), body });
const probe = (s: TestServer, user: TestUser, body: unknown = {}) =>
  call(ByokProbeResult, url(s, "/probe"), { method: "POST", headers: sessionHeaders(s, user), body });

async function addMember(s: TestServer, teamId: string, role: "admin" | "member") {
  const user = await signUp(s, role);
  await s.database.db.insert(teamMembers).values({ teamId, userId: user.userId, role });
  return user;
}

describe("BYOK settings", () => {
  it("shows no settings and the platform default before any are saved", async () => {
    const owner = await signUp(privateServer, "owner");
    const res = await get(privateServer, sessionHeaders(privateServer, owner));
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      object: "byok_settings",
      teamId: owner.teamId,
      configured: false,
      provider: null,
      hasKey: false,
      keyHint: null,
      effective: { source: "platform", provider: "openai", model: "gpt-4o-mini" },
      platformDefault: { provider: "openai", model: "gpt-4o-mini" },
    });
    const bare = await signUp(server, "bare");
    expect((await get(server, sessionHeaders(server, bare))).body).toMatchObject({
      effective: { source: "none" },
      platformDefault: null,
    });
  });

  it("stores the key sealed, shows only its last four, and takes over from the platform default", async () => {
    const owner = await signUp(privateServer, "owner");
    const res = await put(privateServer, owner, {
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      baseUrl: providers.anthropic.baseUrl,
      apiKey: KEYS.anthropic,
    });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      configured: true,
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      baseUrl: providers.anthropic.baseUrl,
      enabled: true,
      hasKey: true,
      keyHint: "C3d4",
      effective: { source: "byok", provider: "anthropic" },
    });
    const [row] = await privateServer.database.db
      .select()
      .from(schema.byokSettings)
      .where(eq(schema.byokSettings.teamId, owner.teamId));
    expect(row?.sealedKey).toBeTruthy();
    expect(row?.sealedKey).not.toContain("ANTHROPIC");
    expect(row?.updatedBy).toBe(owner.userId);

    const off = await patch(privateServer, owner, { enabled: false });
    expect(off.body).toMatchObject({ enabled: false, hasKey: true, effective: { source: "platform" } });
    const renamed = await patch(privateServer, owner, { model: "claude-haiku-4-5", enabled: true });
    expect(renamed.body).toMatchObject({ model: "claude-haiku-4-5", hasKey: true, keyHint: "C3d4" });

    const removed = await del(privateServer, owner);
    expectStatus(removed, 200);
    expect(removed.body).toMatchObject({
      configured: false,
      hasKey: false,
      effective: { source: "platform" },
    });
    expect((await del(privateServer, owner)).status).toBe(200);
    expectError(await patch(privateServer, owner, { enabled: true }), 404, {
      type: "not_found_error",
      code: "byok_settings_not_found",
    });
  });

  it("never sends the stored key to a new provider or address", async () => {
    const owner = await signUp(privateServer, "owner");
    await put(privateServer, owner, {
      provider: "openai",
      model: "gpt-4o-mini",
      baseUrl: providers.openai.baseUrl,
      apiKey: KEYS.openai,
    });
    expectError(await patch(privateServer, owner, { baseUrl: "http://127.0.0.1:9/v1" }), 400, {
      type: "invalid_request_error",
      code: "parameter_missing",
      param: "apiKey",
    });
    expectError(await testKey(privateServer, owner, { baseUrl: "http://127.0.0.1:9/v1" }), 400, {
      type: "invalid_request_error",
      code: "parameter_missing",
      param: "apiKey",
    });
    // A local server needs no key, so moving to one drops the stored key rather than carrying it along.
    const local = await patch(privateServer, owner, {
      provider: "openai-compatible",
      baseUrl: providers.openai.baseUrl,
    });
    expect(local.body, JSON.stringify(local.body)).toMatchObject({
      provider: "openai-compatible",
      hasKey: false,
      keyHint: null,
      effective: { source: "byok" },
    });
    const cleared = await put(privateServer, owner, {
      provider: "openai",
      model: "gpt-4o",
      apiKey: KEYS.openai,
    });
    expect(cleared.body).toMatchObject({ baseUrl: null, hasKey: true });
    expect((await put(privateServer, owner, { provider: "openai", model: "gpt-4o" })).body).toMatchObject({
      hasKey: true,
    });
  });

  it("lets owners and admins write, members and strangers not", async () => {
    const owner = await signUp(server, "owner");
    const admin = await addMember(server, owner.teamId, "admin");
    const member = await addMember(server, owner.teamId, "member");
    const stranger = await signUp(server, "stranger");
    const body = { teamId: owner.teamId, provider: "google", model: "gemini-2.5-flash", apiKey: KEYS.google };
    expectStatus(await put(server, admin, body), 200);
    expectError(await put(server, member, body), 403, {
      type: "authorization_error",
      code: "insufficient_role",
    });
    expectError(await patch(server, member, { teamId: owner.teamId, enabled: false }), 403, {
      type: "authorization_error",
      code: "insufficient_role",
    });
    expectError(await del(server, member, `?teamId=${owner.teamId}`), 403, {
      type: "authorization_error",
      code: "insufficient_role",
    });
    expectError(await testKey(server, member, { teamId: owner.teamId }), 403, {
      type: "authorization_error",
      code: "insufficient_role",
    });
    const seen = await get(server, sessionHeaders(server, member), `?teamId=${owner.teamId}`);
    expect(seen.body).toMatchObject({ provider: "google", hasKey: true, keyHint: "E5f6" });
    expectError(await get(server, sessionHeaders(server, stranger), `?teamId=${owner.teamId}`), 404, {
      type: "not_found_error",
      code: "team_not_found",
    });
    expectError(await put(server, stranger, body), 404, { type: "not_found_error", code: "team_not_found" });
    expectError(await del(server, stranger, `?teamId=${owner.teamId}`), 404, {
      type: "not_found_error",
      code: "team_not_found",
    });
    // The stranger's own team is untouched by all of this.
    expect((await get(server, sessionHeaders(server, stranger))).body).toMatchObject({
      teamId: stranger.teamId,
      configured: false,
    });
  });

  it("is readable with an autousers:read key; writing needs a signed-in session", async () => {
    const owner = await signUp(server, "owner");
    await put(server, owner, { provider: "openai", model: "gpt-4o-mini", apiKey: KEYS.openai });
    const reader = await mintApiKey(server, owner, ["autousers:read"]);
    expect((await get(server, bearer(reader))).body).toMatchObject({ teamId: owner.teamId, hasKey: true });
    const other = await mintApiKey(server, owner, ["templates:read"]);
    expectError(await get(server, bearer(other)), 403, {
      type: "authorization_error",
      code: "missing_required_scope",
    });
    const full = await mintApiKey(server, owner, ["*"]);
    for (const [method, path] of [
      ["PUT", ""],
      ["PATCH", ""],
      ["DELETE", ""],
      ["POST", "/test"],
      ["POST", "/probe"],
    ] as const) {
      const res = await call(z.never(), url(server, path), {
        method,
        headers: bearer(full),
        body:
          method === "DELETE" ? undefined : { provider: "openai", model: "gpt-4o-mini", apiKey: KEYS.openai },
      });
      expectError(res, 403, { type: "authorization_error", code: "session_required" });
    }
  });

  it("validates every field with its param", async () => {
    const owner = await signUp(server, "owner");
    const cases: [unknown, string, string][] = [
      [{ model: "gpt-4o" }, "parameter_missing", "provider"],
      [{ provider: "mistral", model: "x", apiKey: "k" }, "parameter_invalid", "provider"],
      [{ provider: "openai", model: "../../admin", apiKey: "k" }, "parameter_invalid", "model"],
      [{ provider: "openai", model: "gpt 4", apiKey: "k" }, "parameter_invalid", "model"],
      [{ provider: "openai", model: "gpt-4o", apiKey: "has space" }, "parameter_invalid", "apiKey"],
      [{ provider: "openai", model: "gpt-4o" }, "parameter_missing", "apiKey"],
      [{ provider: "openai-compatible", model: "llama3" }, "parameter_missing", "baseUrl"],
      [{ provider: "openai", model: "gpt-4o", apiKey: "k", enabled: "yes" }, "parameter_invalid", "enabled"],
      [{ provider: "openai", model: "gpt-4o", apiKey: "k", secret: 1 }, "parameter_unknown", "secret"],
    ];
    for (const [body, code, param] of cases) {
      expectError(await put(server, owner, body), 400, { type: "invalid_request_error", code, param });
    }
  });

  it("guards the base URL like a webhook URL", async () => {
    const owner = await signUp(server, "owner");
    for (const baseUrl of [
      "http://llm.example.com/v1",
      "https://127.0.0.1/v1",
      "https://169.254.169.254/latest",
      "https://[::1]/v1",
      "https://user:pass@llm.example.com/v1",
      "not a url",
    ]) {
      expectError(
        await put(server, owner, { provider: "openai-compatible", model: "llama3", baseUrl }),
        400,
        {
          type: "invalid_request_error",
          code: "byok_base_url_invalid",
          param: "baseUrl",
        },
      );
    }
    expectError(
      await testKey(server, owner, {
        provider: "openai-compatible",
        model: "llama3",
        baseUrl: "https://10.0.0.8/v1",
      }),
      400,
      {
        type: "invalid_request_error",
        code: "byok_base_url_invalid",
        param: "baseUrl",
      },
    );
  });
});

describe("POST /settings/byok/test and /probe", () => {
  it.each([
    ["openai", "gpt-4o-mini"],
    ["anthropic", "claude-sonnet-4-5"],
    ["google", "gemini-2.5-flash"],
  ] as const)("tests the stored %s key with one real call", async (provider, model) => {
    const owner = await signUp(privateServer, "owner");
    await put(privateServer, owner, {
      provider,
      model,
      baseUrl: providers[provider].baseUrl,
      apiKey: KEYS[provider],
    });
    providers[provider].enqueue({ type: "text", text: "OK" });
    const res = await testKey(privateServer, owner);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      object: "byok_test",
      ok: true,
      provider,
      model,
      keySource: "stored",
      error: null,
    });
    expect(providers[provider].requests.at(-1)?.apiKey).toBe(KEYS[provider]);

    const wrong = await testKey(privateServer, owner, { apiKey: KEYS.wrong });
    expect(wrong.body).toMatchObject({
      ok: false,
      keySource: "supplied",
      error: { code: "provider_auth", providerStatus: provider === "google" ? 400 : 401 },
    });

    providers[provider].enqueue({ type: "rate-limited", retryAfterSeconds: 12 });
    expect((await testKey(privateServer, owner)).body).toMatchObject({
      ok: false,
      error: { code: "provider_rate_limited", retryAfterSeconds: 12 },
    });
  });

  it("keeps no idempotency record of a request that carries a key", async () => {
    const owner = await signUp(privateServer, "owner");
    providers.openai.enqueue({ type: "text", text: "OK" });
    const res = await call(ByokTestResult, url(privateServer, "/test"), {
      method: "POST",
      headers: { ...sessionHeaders(privateServer, owner), "Idempotency-Key": "byok-test-1" },
      body: {
        provider: "openai",
        model: "gpt-4o-mini",
        baseUrl: providers.openai.baseUrl,
        apiKey: KEYS.openai,
      },
    });
    expect(res.body).toMatchObject({ ok: true, keySource: "supplied" });
    const rows = await privateServer.database.db.select().from(idempotencyRecords);
    expect(rows.filter((row) => row.key === "byok-test-1")).toEqual([]);
    expect(JSON.stringify(rows)).not.toContain("OPENAI-secret");
  });

  it("tries unsaved settings with a supplied key, and explains an unreachable server", async () => {
    const owner = await signUp(privateServer, "owner");
    providers.openai.enqueue({ type: "text", text: "OK" });
    const res = await testKey(privateServer, owner, {
      provider: "openai-compatible",
      model: "llama3.2",
      baseUrl: providers.openai.baseUrl,
      apiKey: KEYS.openai,
    });
    expect(res.body).toMatchObject({ ok: true, keySource: "supplied", provider: "openai-compatible" });
    expect(providers.openai.requests.at(-1)?.url).toBe("/v1/chat/completions");
    const down = await testKey(privateServer, owner, {
      provider: "openai-compatible",
      model: "llama3.2",
      baseUrl: "http://127.0.0.1:9/v1",
    });
    expect(down.body).toMatchObject({
      ok: false,
      keySource: "none",
      error: { code: "provider_unreachable" },
    });
    expectError(await testKey(privateServer, owner), 400, {
      type: "invalid_request_error",
      code: "parameter_missing",
      param: "provider",
    });
  });

  it("probes image input and structured output", async () => {
    const owner = await signUp(privateServer, "owner");
    await put(privateServer, owner, {
      provider: "google",
      model: "gemini-2.5-flash",
      baseUrl: providers.google.baseUrl,
      apiKey: KEYS.google,
    });
    providers.google.enqueue({ type: "json", value: { score: 5, reason: "clear" } });
    const res = await probe(privateServer, owner);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      object: "byok_probe",
      ok: true,
      known: true,
      capabilities: { imageInput: true, structuredOutput: true },
      basis: { imageInput: "table", structuredOutput: "call" },
      error: null,
    });

    providers.openai.enqueue(
      { type: "json", value: { score: 3, reason: "fine" } },
      { type: "text", text: "Red" },
    );
    const local = await probe(privateServer, owner, {
      provider: "openai-compatible",
      model: "house-model",
      baseUrl: providers.openai.baseUrl,
      apiKey: KEYS.openai,
    });
    expect(local.body, JSON.stringify(local.body)).toMatchObject({
      ok: true,
      known: false,
      capabilities: { imageInput: true },
      basis: { imageInput: "call" },
    });
    expect(providers.openai.requests.at(-1)?.images).toBe(1);
  });

  it("allows 5 checks a minute per user, test and probe each", async () => {
    const owner = await signUp(privateServer, "limited");
    const body = {
      provider: "openai-compatible",
      model: "llama3.2",
      baseUrl: providers.openai.baseUrl,
      apiKey: KEYS.openai,
    };
    providers.openai.setFallback({ type: "text", text: "OK" });
    try {
      for (let i = 0; i < 5; i++) expectStatus(await testKey(privateServer, owner, body), 200);
      const sixth = await testKey(privateServer, owner, body);
      expectError(sixth, 429, { type: "rate_limit_error", code: "rate_limit_exceeded" });
      expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThan(0);
      expectStatus(await probe(privateServer, owner, body), 200);
      const other = await signUp(privateServer, "unlimited");
      expectStatus(await testKey(privateServer, other, body), 200);
    } finally {
      providers.openai.setFallback(null);
    }
  });
});
