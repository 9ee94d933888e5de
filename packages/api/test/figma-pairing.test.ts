import { PairingApproved, PairingPollResult, PluginPairing, WhoAmI } from "@rubricon/contracts";
import { pluginPairings } from "@rubricon/db";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { expectError, expectStatus } from "./helpers/assertions";
import { bearer, call, mintApiKey, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let user: TestUser;
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };

beforeAll(async () => {
  server = await startTestServer({ clock });
  user = await signUp(server, "plugin");
});
// Each test starts in a fresh minute of the pairing routes' window.
beforeEach(() => {
  offsetMs += 2 * 60 * 1000;
});
afterAll(() => server?.close());

const pair = () => call(PluginPairing, `${server.api}/auth/figma/pair`, { method: "POST" });
const poll = (code: string, pollingSecret: string) =>
  call(PairingPollResult, `${server.api}/auth/figma/pair/${encodeURIComponent(code)}/poll`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: { pollingSecret },
  });
const approve = (code: string, headers: Record<string, string> = sessionHeaders(server, user)) =>
  call(PairingApproved, `${server.api}/auth/figma/pair/${encodeURIComponent(code)}/approve`, {
    method: "POST",
    headers,
  });

describe("pairing the design-tool plugin", () => {
  it("pairs by code: pending, approved by the signed-in user, then a 7-day plugin token once", async () => {
    const started = await pair();
    expectStatus(started, 201);
    const { code, pollingSecret, expiresAt } = started.body;
    expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect(new Date(expiresAt).getTime() - clock.now().getTime()).toBeGreaterThan(9 * 60 * 1000);
    expect(new Date(expiresAt).getTime() - clock.now().getTime()).toBeLessThanOrEqual(10 * 60 * 1000);
    expect(started.body.verificationUrl).toBe(`${server.url}/pair?code=${code}`);

    const pending = await poll(code, pollingSecret);
    expectStatus(pending, 200);
    expect(pending.body).toEqual({ object: "plugin_pairing_status", status: "pending" });
    expectError(await poll(code, "not-the-secret"), 404, {
      type: "not_found_error",
      code: "pairing_not_found",
    });

    // Only a signed-in session approves.
    expectError(await approve(code, {}), 401, {
      type: "authentication_error",
      code: "authentication_required",
    });
    const key = await mintApiKey(server, user, ["*"]);
    expectError(await approve(code, bearer(key)), 403, {
      type: "authorization_error",
      code: "session_required",
    });
    // Typed as the user reads it: lower case, no dash.
    const approved = await approve(code.toLowerCase().replace("-", ""));
    expectStatus(approved, 200);
    expect(approved.body).toEqual({ object: "plugin_pairing", code, status: "approved" });

    const done = await poll(code, pollingSecret);
    expectStatus(done, 200);
    expect(done.body.status).toBe("approved");
    const token = done.body.token!;
    const [header, payload] = token
      .split(".")
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, "base64url").toString()));
    expect(header.alg).toBe("HS256");
    expect(payload).toMatchObject({ typ: "plugin", sub: user.userId });
    expect(payload.exp - payload.iat).toBe(7 * 24 * 60 * 60);

    // The plugin acts as the user.
    const me = await call(WhoAmI, `${server.api}/auth/whoami`, { headers: bearer(token) });
    expectStatus(me, 200);
    expect(me.body).toMatchObject({ userId: user.userId, principal: "plugin", teamId: user.teamId });
    expect(me.body).not.toHaveProperty("scopes");

    // Single use: the code is spent.
    expectError(await poll(code, pollingSecret), 404, { type: "not_found_error", code: "pairing_not_found" });
    expectError(await approve(code), 404, { type: "not_found_error", code: "pairing_not_found" });

    // Only hashes are stored.
    const rows = await server.app.services.db.select().from(pluginPairings);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(pollingSecret);
    expect(dump).not.toContain(code.replace("-", ""));
  });

  it("expires codes after 10 minutes", async () => {
    const { code, pollingSecret } = (await pair()).body as { code: string; pollingSecret: string };
    offsetMs += 10 * 60 * 1000 + 1000;
    expectError(await approve(code), 400, { type: "invalid_request_error", code: "pairing_expired" });
    expectError(await poll(code, pollingSecret), 400, {
      type: "invalid_request_error",
      code: "pairing_expired",
    });
  });

  it("allows 10 pairing requests a minute per client address", async () => {
    for (let i = 0; i < 10; i++) expectStatus(await pair(), 201);
    const refused = await pair();
    expectError(refused, 429, { type: "rate_limit_error", code: "rate_limit_exceeded" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
