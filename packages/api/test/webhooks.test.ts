import { createHash } from "node:crypto";
import {
  DeletedObject,
  EventList,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
  WebhookSecretRotation,
  WebhookTestResult,
  WhoAmI,
} from "@rubricon/contracts";
import { setTeamPlan } from "@rubricon/core";
import { events, webhookDeliveries, webhookEndpoints } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { RouteTable } from "../src/http/route-table";
import { appRouter } from "../src/routers/index";
import { expectError, expectStatus } from "./helpers/assertions";
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
import { createEndpoint, createTeam, startWebhookServer } from "./helpers/webhooks";

let server: TestServer;
let strict: TestServer;
let off: TestServer;
let user: TestUser;
let key: string;

const ENDPOINT = { url: "https://93.184.216.34/hooks", enabled_events: ["*"] };

beforeAll(async () => {
  [server, off] = await Promise.all([startWebhookServer(), startTestServer()]);
  // The production URL policy: https and public addresses only.
  strict = await startTestServer({ env: { WEBHOOKS_ENABLED: "true" }, database: server.database });
  user = await signUp(server, "hooks");
  key = await mintApiKey(server, user, ["webhooks:*", "events:read", "evaluations:*"]);
});
afterAll(async () => {
  await strict?.close();
  await Promise.all([server?.close(), off?.close()]);
});

describe("gates", () => {
  it("answers 503 feature_not_available with Retry-After on every webhook and event route while the flag is off", async () => {
    const offUser = await signUp(off, "off");
    const offKey = await mintApiKey(off, offUser, ["*"]);
    // whoami is unmetered but reports the budget: the refused requests must not have spent any of it.
    const budget = async () =>
      (await call(WhoAmI, `${off.api}/auth/whoami`, { headers: bearer(offKey) })).headers.get(
        "x-ratelimit-remaining",
      );
    const before = await budget();
    expect(before).not.toBeNull();
    for (const [method, path] of [
      ["GET", "/webhooks"],
      ["POST", "/webhooks"],
      ["GET", "/webhooks/whe_x"],
      ["POST", "/webhooks/whe_x/test"],
      ["GET", "/webhooks/whe_x/deliveries"],
      ["GET", "/events"],
      ["GET", "/events/event_x"],
    ] as const) {
      const res = await call(z.never(), `${off.api}${path}`, {
        method,
        headers: bearer(offKey),
        body: method === "POST" ? {} : undefined,
      });
      expectError(res, 503, { type: "api_error", code: "feature_not_available" });
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      // A fresh install meets this first: the message names the setting that turns the feature on.
      expect(res.body.error.message).toContain("WEBHOOKS_ENABLED=true");
    }
    expect(await budget()).toBe(before);
  });

  it("authenticates before saying the feature is off: 401 without credentials, 403 without the scope", async () => {
    const offUser = await signUp(off, "off-anon");
    const unscoped = await mintApiKey(off, offUser, ["evaluations:read"]);
    const routes = new RouteTable(appRouter).routes.filter((r) => r.meta.feature === "webhooks");
    // The twelve webhooks and events operations, and the live event stream.
    expect(routes).toHaveLength(13);
    for (const route of routes) {
      const path = route.path.replace(/\{(\w+)\}/g, "x_1");
      const init = { method: route.method, body: route.method === "GET" ? undefined : {} };
      expectError(await call(z.never(), `${off.api}${path}`, init), 401, {
        type: "authentication_error",
        code: "authentication_required",
      });
      expectError(await call(z.never(), `${off.api}${path}`, { ...init, headers: bearer(unscoped) }), 403, {
        type: "authorization_error",
        code: "missing_required_scope",
      });
    }
  });

  it("refuses Free and Team teams with 403 plan_upgrade_required, and serves Pro and Enterprise", async () => {
    for (const plan of ["free", "team"] as const) {
      const member = await signUp(server, plan, { plan });
      const k = await mintApiKey(server, member, ["*"]);
      expectError(await call(WebhookEndpointList, `${server.api}/webhooks`, { headers: bearer(k) }), 403, {
        type: "authorization_error",
        code: "plan_upgrade_required",
      });
      expectError(await call(EventList, `${server.api}/events`, { headers: bearer(k) }), 403, {
        type: "authorization_error",
        code: "plan_upgrade_required",
      });
    }
    const enterprise = await signUp(server, "ent", { plan: "enterprise" });
    const res = await call(WebhookEndpointList, `${server.api}/webhooks`, {
      headers: bearer(await mintApiKey(server, enterprise, ["*"])),
    });
    expect(res.status).toBe(200);
  });

  it("judges a signed-in user's request by the team it acts on", async () => {
    const member = await signUp(server, "multi", { plan: "free" });
    const proTeam = await createTeam(server, member, "Pro team");
    const { services } = server.app;
    await setTeamPlan({ db: services.db, clock: services.clock, baseUrl: server.url }, proTeam, "pro");
    const headers = sessionHeaders(server, member);
    // Without teamId the personal (Free) team is the target.
    expectError(await call(WebhookEndpointList, `${server.api}/webhooks`, { headers }), 403, {
      type: "authorization_error",
      code: "plan_upgrade_required",
    });
    expect(
      (await call(WebhookEndpointList, `${server.api}/webhooks?teamId=${proTeam}`, { headers })).status,
    ).toBe(200);
    const endpoint = await createEndpoint(server, headers, { ...ENDPOINT, teamId: proTeam });
    expect(endpoint.teamId).toBe(proTeam);
    // A path naming the Pro team's endpoint acts on that team.
    expect((await call(WebhookEndpoint, `${server.api}/webhooks/${endpoint.id}`, { headers })).status).toBe(
      200,
    );
    expect((await call(EventList, `${server.api}/events?teamId=${proTeam}`, { headers })).status).toBe(200);
  });

  it("needs webhooks:read, webhooks:write and events:read scopes", async () => {
    const reader = await mintApiKey(server, user, ["webhooks:read"]);
    expect(
      (await call(WebhookEndpointList, `${server.api}/webhooks`, { headers: bearer(reader) })).status,
    ).toBe(200);
    expectError(
      await call(WebhookEndpointWithSecret, `${server.api}/webhooks`, {
        method: "POST",
        headers: bearer(reader),
        body: ENDPOINT,
      }),
      403,
      {
        type: "authorization_error",
        code: "missing_required_scope",
      },
    );
    expectError(await call(EventList, `${server.api}/events`, { headers: bearer(reader) }), 403, {
      type: "authorization_error",
      code: "missing_required_scope",
    });
    const other = await mintApiKey(server, user, ["evaluations:*"]);
    const res = await call(WebhookEndpointList, `${server.api}/webhooks`, { headers: bearer(other) });
    expectError(res, 403, { type: "authorization_error", code: "missing_required_scope" });
    expect(res.body.error.message).toContain("webhooks:read");
  });
});

describe("endpoints", () => {
  it("creates an endpoint, shows the secret once and keeps only its hash and a sealed copy", async () => {
    const res = await call(WebhookEndpointWithSecret, `${server.api}/webhooks`, {
      method: "POST",
      headers: bearer(key),
      body: { url: "https://93.184.216.34/hooks", description: "Orders", enabled_events: ["rating.created"] },
    });
    expectStatus(res, 201);
    const created = res.body;
    expect(created).toMatchObject({
      object: "webhook_endpoint",
      teamId: user.teamId,
      url: "https://93.184.216.34/hooks",
      description: "Orders",
      enabled_events: ["rating.created"],
      status: "enabled",
      disabled_reason: null,
      previousSecretValidUntil: null,
    });
    expect(created.id).toMatch(/^whe_/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);

    const [row] = await server.database.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, created.id));
    expect(row!.secretHash).toBe(createHash("sha256").update(created.secret).digest("hex"));
    expect(row!.secretSealed).not.toContain(created.secret);

    const got = await call(WebhookEndpoint, `${server.api}/webhooks/${created.id}`, { headers: bearer(key) });
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty("secret");
    expect(bodyOf(got)).toMatchObject({ id: created.id, url: created.url });

    const list = bodyOf(await call(WebhookEndpointList, `${server.api}/webhooks`, { headers: bearer(key) }));
    expect(list.data.map((e) => e.id)).toContain(created.id);
    expect(list.data.every((e) => !("secret" in e))).toBe(true);
  });

  it("validates enabled_events: known types, or * alone", async () => {
    for (const enabled_events of [
      [],
      ["*", "rating.created"],
      ["rating.deleted"],
      ["rating.created", "rating.created"],
    ]) {
      const res = await call(WebhookEndpointWithSecret, `${server.api}/webhooks`, {
        method: "POST",
        headers: bearer(key),
        body: { url: ENDPOINT.url, enabled_events },
      });
      expectError(res, 400, { type: "invalid_request_error" });
      expect(res.body.error.param).toMatch(/^enabled_events/);
    }
    const unknown = await call(WebhookEndpointWithSecret, `${server.api}/webhooks`, {
      method: "POST",
      headers: bearer(key),
      body: { ...ENDPOINT, secret: "whsec_mine" },
    });
    expectError(unknown, 400, { type: "invalid_request_error", code: "parameter_unknown", param: "secret" });
  });

  it("refuses URLs that are not https or reach private, loopback or link-local addresses", async () => {
    const strictKey = await mintApiKey(strict, user, ["webhooks:*"]);
    for (const url of [
      "http://93.184.216.34/hooks",
      "ftp://93.184.216.34/hooks",
      "not a url",
      "https://user:pw@93.184.216.34/hooks",
      "https://127.0.0.1/hooks",
      "https://localhost:8443/hooks",
      "https://10.1.2.3/hooks",
      "https://172.16.0.1/hooks",
      "https://192.168.1.1/hooks",
      "https://169.254.169.254/latest/meta-data",
      "https://100.64.0.1/hooks",
      "https://0.0.0.0/hooks",
      "https://[::1]/hooks",
      "https://[fe80::1]/hooks",
      "https://[fd00::1]/hooks",
      "https://[::ffff:127.0.0.1]/hooks",
      "https://[::ffff:a9fe:a9fe]/hooks",
      "https://[64:ff9b::a9fe:a9fe]/hooks",
      "https://[2002:7f00:1::]/hooks",
    ]) {
      const res = await call(WebhookEndpointWithSecret, `${strict.api}/webhooks`, {
        method: "POST",
        headers: bearer(strictKey),
        body: { url, enabled_events: ["*"] },
      });
      expectError(res, 400, { type: "invalid_request_error", code: "webhook_url_invalid", param: "url" });
    }
    const ok = await call(WebhookEndpointWithSecret, `${strict.api}/webhooks`, {
      method: "POST",
      headers: bearer(strictKey),
      body: { url: "https://[2606:4700:4700::1111]/hooks", enabled_events: ["*"] },
    });
    expectStatus(ok, 201);
    // The same check applies when the URL changes.
    const patched = await call(WebhookEndpoint, `${strict.api}/webhooks/${ok.body.id}`, {
      method: "PATCH",
      headers: bearer(strictKey),
      body: { url: "https://127.0.0.1/hooks" },
    });
    expectError(patched, 400, { type: "invalid_request_error", code: "webhook_url_invalid", param: "url" });
  });

  it("updates, disables and enables, and deletes an endpoint", async () => {
    const endpoint = await createEndpoint(server, bearer(key), ENDPOINT);
    const patch = (body: unknown) =>
      call(WebhookEndpoint, `${server.api}/webhooks/${endpoint.id}`, {
        method: "PATCH",
        headers: bearer(key),
        body,
      });
    const changed = await patch({ description: "Renamed", enabled_events: ["evaluation.created"] });
    expectStatus(changed, 200);
    expect(changed.body).toMatchObject({
      description: "Renamed",
      enabled_events: ["evaluation.created"],
    });
    const disabled = await patch({ status: "disabled" });
    expect(disabled.body).toMatchObject({ status: "disabled", disabled_reason: null });
    expect(bodyOf(disabled).disabledAt).toEqual(expect.any(String));
    expect((await patch({ status: "enabled" })).body).toMatchObject({ status: "enabled", disabledAt: null });

    const deleted = await call(DeletedObject, `${server.api}/webhooks/${endpoint.id}`, {
      method: "DELETE",
      headers: bearer(key),
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: endpoint.id, deleted: true });
    expectError(
      await call(WebhookEndpoint, `${server.api}/webhooks/${endpoint.id}`, { headers: bearer(key) }),
      404,
      {
        type: "not_found_error",
        code: "webhook_endpoint_not_found",
      },
    );
  });

  it("keeps endpoints to their team: another team's id is 404 on every route", async () => {
    const endpoint = await createEndpoint(server, bearer(key), ENDPOINT);
    const stranger = await signUp(server, "stranger");
    const strangerKey = await mintApiKey(server, stranger, ["*"]);
    for (const [method, path, body] of [
      ["GET", "", undefined],
      ["PATCH", "", { description: "mine now" }],
      ["DELETE", "", undefined],
      ["POST", "/rotate-secret", undefined],
      ["POST", "/test", { type: "rating.created" }],
      ["GET", "/deliveries", undefined],
    ] as const) {
      const res = await call(z.never(), `${server.api}/webhooks/${endpoint.id}${path}`, {
        method,
        headers: bearer(strangerKey),
        body,
      });
      expectError(res, 404, { type: "not_found_error", code: "webhook_endpoint_not_found" });
    }
    const mine = bodyOf(
      await call(WebhookEndpointList, `${server.api}/webhooks`, { headers: bearer(strangerKey) }),
    );
    expect(mine.data).toEqual([]);
  });
});

describe("rotation and test events", () => {
  it("rotates the secret: the new one once, the previous one valid for 24 hours", async () => {
    const endpoint = await createEndpoint(server, bearer(key), ENDPOINT);
    const res = await call(WebhookSecretRotation, `${server.api}/webhooks/${endpoint.id}/rotate-secret`, {
      method: "POST",
      headers: bearer(key),
    });
    expectStatus(res, 200);
    const rotation = res.body;
    expect(Object.keys(rotation).sort()).toEqual(["id", "previousSecretValidUntil", "rotatedAt", "secret"]);
    expect(rotation.id).toBe(endpoint.id);
    expect(rotation.secret).toMatch(/^whsec_/);
    expect(rotation.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotation.previousSecretValidUntil) - Date.parse(rotation.rotatedAt)).toBe(
      24 * 3600 * 1000,
    );
    const got = await call(WebhookEndpoint, `${server.api}/webhooks/${endpoint.id}`, {
      headers: bearer(key),
    });
    expect(got.body).toMatchObject({
      secretRotatedAt: rotation.rotatedAt,
      previousSecretValidUntil: rotation.previousSecretValidUntil,
    });
    expect(got.body).not.toHaveProperty("secret");
  });

  it("queues a synthetic test delivery, free of the request budget, with no other side effect", async () => {
    const tester = await signUp(server, "tester", { plan: "pro" });
    const testerKey = await mintApiKey(server, tester, ["webhooks:*"]);
    const endpoint = await createEndpoint(server, bearer(testerKey), ENDPOINT);
    const before = await call(WebhookEndpoint, `${server.api}/webhooks/${endpoint.id}`, {
      headers: bearer(testerKey),
    });
    const remaining = Number(before.headers.get("x-ratelimit-remaining"));
    const res = await call(WebhookTestResult, `${server.api}/webhooks/${endpoint.id}/test`, {
      method: "POST",
      headers: bearer(testerKey),
      body: { type: "evaluation.completed" },
    });
    expectStatus(res, 202);
    const result = res.body;
    expect(result).toMatchObject({ status: "pending", synthetic: true });
    expect(result.deliveryId).toMatch(/^whd_test_/);
    expect(result.eventId).toMatch(/^event_test_/);
    // The answer's headers show the test deliveries' own limit per endpoint; the request budget, read again,
    // has spent only the reading.
    const after = await call(WebhookEndpoint, `${server.api}/webhooks/${endpoint.id}`, {
      headers: bearer(testerKey),
    });
    expect(Number(after.headers.get("x-ratelimit-remaining"))).toBe(remaining - 1);

    const rows = await server.database.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, result.deliveryId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ synthetic: true, status: "pending", eventType: "evaluation.completed" });
    expect(await server.database.db.select().from(events).where(eq(events.teamId, tester.teamId))).toEqual(
      [],
    );

    const bad = await call(WebhookTestResult, `${server.api}/webhooks/${endpoint.id}/test`, {
      method: "POST",
      headers: bearer(testerKey),
      body: { type: "rating.deleted" },
    });
    expectError(bad, 400, { type: "invalid_request_error", param: "type" });
  });

  it("refuses test events and retries for a disabled endpoint", async () => {
    const endpoint = await createEndpoint(server, bearer(key), ENDPOINT);
    await call(WebhookEndpoint, `${server.api}/webhooks/${endpoint.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { status: "disabled" },
    });
    const res = await call(WebhookTestResult, `${server.api}/webhooks/${endpoint.id}/test`, {
      method: "POST",
      headers: bearer(key),
      body: { type: "rating.created" },
    });
    expectError(res, 400, { type: "invalid_request_error", code: "webhook_endpoint_disabled" });
  });
});

describe("OpenAPI document", () => {
  it("documents every webhook and event route with its real success status, scope, gates and 503", async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is asserted field by field
    const doc = (await callRaw(`${server.api}/openapi.json`)).body as any;
    const expected: [string, string, string, string][] = [
      ["get", "/webhooks", "200", "webhooks:read"],
      ["post", "/webhooks", "201", "webhooks:write"],
      ["get", "/webhooks/{id}", "200", "webhooks:read"],
      ["patch", "/webhooks/{id}", "200", "webhooks:write"],
      ["delete", "/webhooks/{id}", "200", "webhooks:write"],
      ["post", "/webhooks/{id}/rotate-secret", "200", "webhooks:write"],
      ["post", "/webhooks/{id}/test", "202", "webhooks:write"],
      ["get", "/webhooks/{id}/deliveries", "200", "webhooks:read"],
      ["get", "/webhooks/{id}/deliveries/{deliveryId}", "200", "webhooks:read"],
      ["post", "/webhooks/{id}/deliveries/{deliveryId}/retry", "202", "webhooks:write"],
      ["get", "/events", "200", "events:read"],
      ["get", "/events/{id}", "200", "events:read"],
    ];
    for (const [method, path, status, scope] of expected) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(Object.keys(op.responses), `${method} ${path}`).toEqual(
        expect.arrayContaining([status, "403", "503"]),
      );
      expect(op["x-required-scope"]).toBe(scope);
      expect(op["x-feature-flag"]).toBe("webhooks");
      expect(op["x-plans"]).toEqual(["pro", "enterprise", "self_hosted"]);
    }
    expect(doc.paths["/webhooks/{id}/test"].post["x-unmetered"]).toBe(true);
    expect(doc.paths["/webhooks/{id}/rotate-secret"].post.description).toMatch(/Service-Signature-Next/);
    expect(doc.components.responses.Error503.headers).toHaveProperty("Retry-After");
  });
});
