import {
  Evaluation,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookSecretRotation,
  WebhookTestResult,
} from "@rubricon/contracts";
import { emitEvent, fixedClock, RETRY_DELAYS_MS } from "@rubricon/core";
import { events, webhookDeliveries } from "@rubricon/db";
import { verify } from "@rubricon/webhooks";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation, expectError, expectStatus } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, signUp } from "./helpers/clients";
import type { TestServer } from "./helpers/server";
import {
  createEndpoint,
  deliveryWorker,
  type Receiver,
  type Reply,
  startReceiver,
  startWebhookServer,
} from "./helpers/webhooks";

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  [server, receiver] = await Promise.all([startWebhookServer(), startReceiver()]);
});
afterAll(async () => {
  await Promise.all([server?.close(), receiver?.close()]);
});
// Workers send every due delivery in the database, so each test starts with none left over.
afterEach(async () => {
  await server.database.db.delete(webhookDeliveries);
  receiver.reply = () => ({ status: 200 });
  receiver.requests.length = 0;
});

/** A fresh Pro team with a key and an endpoint on the receiver; each test's deliveries are its own. */
async function team(enabled_events: string[] = ["*"], path = "/hooks") {
  const user = await signUp(server, "deliveries");
  const key = await mintApiKey(server, user, ["*"]);
  const endpoint = await createEndpoint(server, bearer(key), {
    url: receiver.url.replace("/hooks", path),
    enabled_events,
  });
  return { user, key, endpoint, headers: bearer(key) };
}

const deliveriesOf = (endpointId: string, key: string, query = "") =>
  call(WebhookDeliveryList, `${server.api}/webhooks/${endpointId}/deliveries${query}`, {
    headers: bearer(key),
  });

/** Emits `count` rating.created-style events for the team straight through the outbox helper. */
async function emitMany(teamId: string, count: number) {
  const ctx = { db: server.database.db, clock: server.app.services.clock, baseUrl: server.url };
  for (let i = 0; i < count; i++) {
    await server.database.db.transaction((tx) =>
      emitEvent(tx, ctx, { type: "rating.created", teamId, object: { id: `rat_bulk_${i}` } }),
    );
  }
}

describe("delivering", () => {
  it("POSTs the stored event, signed, with the contract's headers, and logs the attempt", async () => {
    const { user, key, endpoint, headers } = await team();
    const created = await call(Evaluation, `${server.api}/evaluations`, {
      method: "POST",
      headers: { ...headers, "Idempotency-Key": "create-1" },
      body: { name: "Checkout", type: "SSE", designUrls: [{ url: "https://example.com/a" }] },
    });
    expectStatus(created, 201);
    const pass = await deliveryWorker(server).runPass();
    expect(pass).toMatchObject({ delivered: 1, failed: 0, errors: [] });

    expect(receiver.requests).toHaveLength(1);
    const [req] = receiver.requests;
    expect(req!.method).toBe("POST");
    expect(req!.headers["content-type"]).toBe("application/json");
    expect(req!.headers["user-agent"]).toBe("Rubricon-Webhooks/1.0");
    expect(req!.headers["service-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(req!.headers["service-signature-next"]).toBeUndefined();
    await verify(req!.body, req!.headers, endpoint.secret);

    const body = JSON.parse(req!.body);
    const [row] = await server.database.db.select().from(events).where(eq(events.objectId, created.body.id));
    expect(req!.body).toBe(row!.payload);
    expect(body).toEqual({
      id: row!.id,
      object: "event",
      type: "evaluation.created",
      api_version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      created: Math.floor(row!.createdAt.getTime() / 1000),
      team_id: user.teamId,
      data: { object: expect.objectContaining({ id: created.body.id, name: "Checkout", status: "Draft" }) },
      request: { id: created.headers.get("x-request-id"), idempotency_key: "create-1" },
    });
    expect(Object.keys(body.data.object.links).sort()).toEqual(["preview", "results", "review"]);
    expect(req!.headers["service-event-id"]).toBe(body.id);
    expect(req!.headers["service-event-type"]).toBe("evaluation.created");
    const deliveryId = req!.headers["service-delivery-id"] as string;
    expect(deliveryId).toMatch(/^whd_/);

    const list = bodyOf(await deliveriesOf(endpoint.id, key));
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({
      id: deliveryId,
      eventId: body.id,
      eventType: "evaluation.created",
      status: "delivered",
      synthetic: false,
      attemptCount: 1,
      lastStatusCode: 200,
      nextAttemptAt: null,
    });
    const detail = await call(
      WebhookDeliveryDetail,
      `${server.api}/webhooks/${endpoint.id}/deliveries/${deliveryId}`,
      {
        headers,
      },
    );
    expectStatus(detail, 200);
    const parsed = detail.body;
    expect(parsed.attempts).toEqual([
      expect.objectContaining({ number: 1, succeeded: true, statusCode: 200, error: null }),
    ]);
    expect(parsed.event).toEqual(body);
  });

  it("creates deliveries only for enabled endpoints subscribed to the type", async () => {
    const { user, key, endpoint } = await team(["rating.created"]);
    const all = await createEndpoint(server, bearer(key), { url: receiver.url, enabled_events: ["*"] });
    const paused = await createEndpoint(server, bearer(key), { url: receiver.url, enabled_events: ["*"] });
    await call(WebhookEndpoint, `${server.api}/webhooks/${paused.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { status: "disabled" },
    });
    await createEvaluation(server.api, bearer(key));
    const count = async (id: string) =>
      (await server.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id)))
        .length;
    expect([await count(endpoint.id), await count(all.id), await count(paused.id)]).toEqual([0, 1, 0]);
    await emitMany(user.teamId, 1);
    expect([await count(endpoint.id), await count(all.id), await count(paused.id)]).toEqual([1, 2, 0]);
  });

  it("retries on the schedule after non-2xx answers, resets and time-outs, then abandons", async () => {
    const { key, endpoint } = await team();
    const replies: Reply[] = [
      { status: 500, body: "x".repeat(3000) },
      "reset",
      "hang",
      { status: 302, headers: { Location: `${receiver.url}/elsewhere` } },
      { status: 404 },
      { status: 429 },
      { status: 503 },
      { status: 400 },
      { status: 500 },
    ];
    receiver.reply = () => replies[receiver.requests.length - 1] ?? { status: 200 };
    await createEvaluation(server.api, bearer(key));
    // Set after the event, so its first attempt is due.
    const clock = fixedClock(new Date());
    const worker = deliveryWorker(server, { clock, timeoutMs: 300 });

    const deliveryRow = async () =>
      (
        await server.database.db
          .select()
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.endpointId, endpoint.id))
      )[0]!;
    for (let attempt = 1; attempt <= 9; attempt++) {
      const pass = await worker.runPass();
      expect(pass.failed, `attempt ${attempt}`).toBe(1);
      const row = await deliveryRow();
      expect(row.attemptCount).toBe(attempt);
      if (attempt < 9) {
        expect(row.status).toBe("retrying");
        expect(row.nextAttemptAt!.getTime() - clock.now().getTime()).toBe(RETRY_DELAYS_MS[attempt - 1]);
        // Not due yet: a pass now sends nothing.
        expect((await worker.runPass()).failed).toBe(0);
        clock.set(row.nextAttemptAt!);
      } else {
        expect(row.status).toBe("abandoned");
        expect(row.nextAttemptAt).toBeNull();
      }
    }
    // The redirect was not followed.
    expect(receiver.requests.map((r) => r.path)).not.toContain("/hooks/elsewhere");
    expect(receiver.requests).toHaveLength(9);

    const id = (await deliveryRow()).id;
    const detail = bodyOf(
      await call(WebhookDeliveryDetail, `${server.api}/webhooks/${endpoint.id}/deliveries/${id}`, {
        headers: bearer(key),
      }),
    );
    expect(detail.status).toBe("abandoned");
    expect(detail.attempts.map((a) => [a.number, a.succeeded, a.statusCode])).toEqual([
      [1, false, 500],
      [2, false, null],
      [3, false, null],
      [4, false, 302],
      [5, false, 404],
      [6, false, 429],
      [7, false, 503],
      [8, false, 400],
      [9, false, 500],
    ]);
    expect(detail.attempts[0]!.responseBody).toHaveLength(1024);
    expect(detail.attempts[1]!.error).toMatch(/reset/);
    expect(detail.attempts[2]!.error).toMatch(/timed out/);
    expect(detail.attempts[3]!.error).toMatch(/redirect/);

    // The status filter and a manual retry: one more attempt now, delivered this time.
    const abandoned = bodyOf(await deliveriesOf(endpoint.id, key, "?status=abandoned"));
    expect(abandoned.data.map((d) => d.id)).toEqual([id]);
    expect(bodyOf(await deliveriesOf(endpoint.id, key, "?status=delivered")).data).toEqual([]);
    const retried = await call(
      WebhookDelivery,
      `${server.api}/webhooks/${endpoint.id}/deliveries/${id}/retry`,
      {
        method: "POST",
        headers: bearer(key),
      },
    );
    expectStatus(retried, 202);
    expect(retried.body).toMatchObject({ id, status: "pending" });
    expect((await worker.runPass()).delivered).toBe(1);
    expect(await deliveryRow()).toMatchObject({ status: "delivered", attemptCount: 10 });
    worker.close();
  });

  it("sends test events, signed, with _test_ ids and the caller's team", async () => {
    const { user, key, endpoint } = await team();
    const res = await call(WebhookTestResult, `${server.api}/webhooks/${endpoint.id}/test`, {
      method: "POST",
      headers: bearer(key),
      body: { type: "rating.created" },
    });
    expectStatus(res, 202);
    receiver.reply = () => ({ status: 500 });
    const worker = deliveryWorker(server);
    expect((await worker.runPass()).failed).toBe(1);
    const [req] = receiver.requests;
    await verify(req!.body, req!.headers, endpoint.secret);
    const event = JSON.parse(req!.body);
    expect(event).toMatchObject({ id: res.body.eventId, type: "rating.created", team_id: user.teamId });
    expect(event.id).toMatch(/^event_test_/);
    expect(event.data.object.id).toMatch(/^rat_test_/);
    expect(req!.headers["service-delivery-id"]).toBe(res.body.deliveryId);
    // Failed test deliveries retry on the normal schedule.
    const [row] = await server.database.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, res.body.deliveryId));
    expect(row).toMatchObject({ status: "retrying", attemptCount: 1 });
    worker.close();
  });

  it("lists deliveries newest first with exact cursors, and 404s unknown deliveries", async () => {
    const { user, key, endpoint } = await team();
    await emitMany(user.teamId, 5);
    const first = bodyOf(await deliveriesOf(endpoint.id, key, "?limit=2"));
    const second = bodyOf(
      await deliveriesOf(endpoint.id, key, `?limit=2&starting_after=${first.next_cursor}`),
    );
    const third = bodyOf(
      await deliveriesOf(endpoint.id, key, `?limit=2&starting_after=${second.next_cursor}`),
    );
    const ids = [...first.data, ...second.data, ...third.data].map((d) => d.id);
    expect(new Set(ids).size).toBe(5);
    expect(third.has_more).toBe(false);
    const eventIds = [...first.data, ...second.data, ...third.data].map((d) => d.eventId);
    const rows = await server.database.db.select().from(events).where(eq(events.teamId, user.teamId));
    const bySeq = rows.sort((a, b) => b.seq - a.seq).map((r) => r.id);
    expect(eventIds).toEqual(bySeq);
    const back = bodyOf(await deliveriesOf(endpoint.id, key, `?limit=2&ending_before=${second.data[0]!.id}`));
    expect(back.data.map((d) => d.id)).toEqual(first.data.map((d) => d.id));
    expectError(await deliveriesOf(endpoint.id, key, "?starting_after=whd_nope"), 400, {
      type: "invalid_request_error",
      code: "invalid_cursor",
      param: "starting_after",
    });
    expectError(
      await call(WebhookDeliveryDetail, `${server.api}/webhooks/${endpoint.id}/deliveries/whd_nope`, {
        headers: bearer(key),
      }),
      404,
      { type: "not_found_error", code: "webhook_delivery_not_found" },
    );
  });
});

describe("addresses at delivery time", () => {
  it("checks the address again when connecting: a host now resolving to loopback gets nothing", async () => {
    const user = await signUp(server, "rebind");
    const key = await mintApiKey(server, user, ["*"]);
    // Accepted when set (this server allows any address); the strict worker below re-checks on connect.
    const port = new URL(receiver.url).port;
    const endpoint = await createEndpoint(server, bearer(key), {
      url: `https://hooks.example.test:${port}/hooks`,
      enabled_events: ["*"],
    });
    const literal = await createEndpoint(server, bearer(key), {
      url: `https://127.0.0.1:${port}/hooks`,
      enabled_events: ["*"],
    });
    await emitMany(user.teamId, 1);
    const worker = deliveryWorker(server, { allowPrivateUrls: false, resolve: async () => ["127.0.0.1"] });
    expect(await worker.runPass()).toMatchObject({ delivered: 0, failed: 2 });
    expect(receiver.requests).toHaveLength(0);
    const errors = await Promise.all(
      [endpoint, literal].map(async (e) => bodyOf(await deliveriesOf(e.id, key)).data[0]!.lastError),
    );
    expect(errors[0]).toMatch(/127\.0\.0\.1, which is not a public address/);
    expect(errors[1]).toMatch(/127\.0\.0\.1 is not a public address/);
    worker.close();
  });
});

describe("several workers", () => {
  it("share the queue without sending any delivery twice", async () => {
    const { user, endpoint } = await team();
    await emitMany(user.teamId, 60);
    const workers = [1, 2, 3].map(() => deliveryWorker(server, { batchSize: 7 }));
    const passes = await Promise.all(workers.map((w) => w.runPass()));
    expect(passes.reduce((n, p) => n + p.delivered, 0)).toBe(60);
    const deliveryIds = receiver.requests.map((r) => r.headers["service-delivery-id"]);
    expect(deliveryIds).toHaveLength(60);
    expect(new Set(deliveryIds).size).toBe(60);
    const rows = await server.database.db
      .select({ status: webhookDeliveries.status })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpoint.id));
    expect(rows.every((r) => r.status === "delivered")).toBe(true);
    for (const w of workers) w.close();
  });
});

describe("signing across a rotation", () => {
  it("signs with the previous secret plus Service-Signature-Next for 24 hours, then with the new one alone", async () => {
    const { key, endpoint } = await team(["*"]);
    const rotation = bodyOf(
      await call(WebhookSecretRotation, `${server.api}/webhooks/${endpoint.id}/rotate-secret`, {
        method: "POST",
        headers: bearer(key),
      }),
    );
    await createEvaluation(server.api, bearer(key));
    const clock = fixedClock(new Date());
    const worker = deliveryWorker(server, { clock });
    await worker.runPass();
    const [during] = receiver.requests;
    const now = Math.floor(clock.now().getTime() / 1000);
    const [t] = /t=(\d+)/.exec(during!.headers["service-signature"] as string)!.slice(1);
    expect(during!.headers["service-signature-next"]).toMatch(new RegExp(`^t=${t},v1=[0-9a-f]{64}$`));
    // A receiver that has only the old secret, or only the new one, or both, accepts it.
    await verify(
      during!.body,
      { "service-signature": during!.headers["service-signature"] as string },
      endpoint.secret,
      { now },
    );
    await verify(
      during!.body,
      {
        "service-signature-next": during!.headers["service-signature-next"] as string,
        "service-signature": during!.headers["service-signature"] as string,
      },
      rotation.secret,
      { now },
    );
    await expect(
      verify(
        during!.body,
        { "service-signature": during!.headers["service-signature"] as string },
        rotation.secret,
        { now },
      ),
    ).rejects.toThrow();

    clock.set(new Date(Date.parse(rotation.previousSecretValidUntil) + 1000));
    await createEvaluation(server.api, bearer(key));
    await worker.runPass();
    const after = receiver.requests[1]!;
    const later = Math.floor(clock.now().getTime() / 1000);
    expect(after.headers["service-signature-next"]).toBeUndefined();
    await verify(after.body, after.headers, rotation.secret, { now: later });
    await expect(verify(after.body, after.headers, endpoint.secret, { now: later })).rejects.toThrow();
    worker.close();
  });
});

describe("disabling failing endpoints", () => {
  it("disables an endpoint after three 410 answers in a row and says why", async () => {
    const { user, key, endpoint } = await team();
    receiver.reply = () => ({ status: 410 });
    await emitMany(user.teamId, 3);
    const worker = deliveryWorker(server, { batchSize: 1, maxInFlight: 1 });
    const pass = await worker.runPass();
    expect(pass.disabled).toEqual([
      { endpointId: endpoint.id, teamId: user.teamId, reason: expect.stringContaining("410") },
    ]);
    const got = await call(WebhookEndpoint, `${server.api}/webhooks/${endpoint.id}`, {
      headers: bearer(key),
    });
    expect(got.body).toMatchObject({
      status: "disabled",
      disabled_reason: expect.stringContaining("410 Gone"),
    });
    // Disabled: nothing more is sent; re-enabling resumes and clears the reason.
    await emitMany(user.teamId, 1);
    expect((await worker.runPass()).failed).toBe(0);
    const enabled = await call(WebhookEndpoint, `${server.api}/webhooks/${endpoint.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { status: "enabled" },
    });
    expect(enabled.body).toMatchObject({ status: "enabled", disabled_reason: null });
    worker.close();
  });

  it("disables an endpoint whose last 50 deliveries all failed, not one with a success among them", async () => {
    const { user, key, endpoint } = await team();
    const worker = deliveryWorker(server);
    // One success, then 49 failures: the success is still among the last 50.
    await emitMany(user.teamId, 1);
    expect((await worker.runPass()).delivered).toBe(1);
    receiver.reply = () => ({ status: 500 });
    await emitMany(user.teamId, 49);
    expect((await worker.runPass()).disabled).toEqual([]);
    expect(
      bodyOf(await call(WebhookEndpoint, `${server.api}/webhooks/${endpoint.id}`, { headers: bearer(key) }))
        .status,
    ).toBe("enabled");
    await emitMany(user.teamId, 1);
    const pass = await worker.runPass();
    expect(pass.disabled).toEqual([
      expect.objectContaining({ endpointId: endpoint.id, reason: expect.stringContaining("50") }),
    ]);
    const got = await call(WebhookEndpoint, `${server.api}/webhooks/${endpoint.id}`, {
      headers: bearer(key),
    });
    expect(got.body).toMatchObject({
      status: "disabled",
      disabled_reason: expect.stringContaining("last 50 deliveries"),
    });
    worker.close();
  });
});
