import {
  API_VERSIONS,
  Evaluation,
  EvaluationList,
  FIRST_API_VERSION,
  LATEST_API_VERSION,
  WebhookEndpoint,
} from "@rubricon/contracts";
import { events, teams, webhookDeliveries } from "@rubricon/db";
import { verify } from "@rubricon/webhooks";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { webhookDeliveryLoop } from "../src/background/webhook-deliveries";
import { expectError, expectStatus } from "./helpers/assertions";
import { bearer, bodyOf, call, callRaw, mintApiKey, sessionHeaders, signUp } from "./helpers/clients";
import type { TestServer } from "./helpers/server";
import { createEndpoint, type Receiver, startReceiver, startWebhookServer } from "./helpers/webhooks";

/** The evaluation as 2026-11-01 showed it: the rating window's two conditions at the top level. */
const EvaluationBefore = Evaluation.omit({ ratingWindow: true }).extend({
  ratingDeadline: z.string().nullable(),
  targetRatingsPerComparison: z.number().int().nullable(),
});
const OLD = "2026-11-01";
const NEW = "2026-11-25";

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  [server, receiver] = await Promise.all([startWebhookServer(), startReceiver()]);
});
afterAll(async () => {
  await Promise.all([server?.close(), receiver?.close()]);
});
afterEach(async () => {
  await server.database.db.delete(webhookDeliveries);
  receiver.requests.length = 0;
});

/** A new team with a key; `pinned` sets its version as the migration left a team from before pinning. */
async function team(pinned?: string) {
  const user = await signUp(server, "versions");
  if (pinned)
    await server.database.db.update(teams).set({ apiVersion: pinned }).where(eq(teams.id, user.teamId));
  const key = await mintApiKey(server, user, ["*"]);
  return { user, key, headers: bearer(key) };
}

const BODY = {
  name: "Versioned",
  type: "SSE",
  designUrls: [{ url: "https://example.com/a" }],
  ratingDeadline: "2030-01-02T03:04:05.000Z",
  targetRatingsPerComparison: 3,
};

describe("versions of the same request", () => {
  it("answers the newest shape to a new team and the old shape to a request naming the old version", async () => {
    expect(API_VERSIONS).toEqual([OLD, NEW]);
    expect(LATEST_API_VERSION).toBe(NEW);
    const { headers } = await team();
    const created = await call(Evaluation, `${server.api}/evaluations`, {
      method: "POST",
      headers,
      body: BODY,
    });
    expectStatus(created, 201);
    expect(created.headers.get("service-version")).toBe(NEW);
    expect(created.body.ratingWindow).toEqual({
      closesAt: "2030-01-02T03:04:05.000Z",
      targetRatingsPerComparison: 3,
    });

    const url = `${server.api}/evaluations/${created.body.id}`;
    const now = await call(Evaluation, url, { headers });
    const then = await call(EvaluationBefore, url, { headers: { ...headers, "Service-Version": OLD } });
    expectStatus(now, 200);
    expectStatus(then, 200);
    expect(then.headers.get("service-version")).toBe(OLD);
    expect(then.body).not.toHaveProperty("ratingWindow");
    expect(then.body.ratingDeadline).toBe("2030-01-02T03:04:05.000Z");
    expect(then.body.targetRatingsPerComparison).toBe(3);
    // Everything else is the same, and in the order the old version answered it.
    const { ratingWindow: _w, ...rest } = now.body;
    const { ratingDeadline: _d, targetRatingsPerComparison: _t, ...restThen } = then.body;
    expect(restThen).toEqual(rest);
    // (The parsed body's keys follow the schema; the raw body's are what was sent.)
    const raw = await callRaw(url, { headers: { ...headers, "Service-Version": OLD } });
    const keys = Object.keys(raw.body as object);
    expect(keys.slice(keys.indexOf("comparisonCount"), keys.indexOf("comparisonCount") + 4)).toEqual([
      "comparisonCount",
      "ratingDeadline",
      "targetRatingsPerComparison",
      "collectRaterName",
    ]);

    // Lists carry the version's shape in every item.
    const OldList = EvaluationList.extend({ data: z.array(EvaluationBefore) });
    const list = bodyOf(
      await call(OldList, `${server.api}/evaluations`, { headers: { ...headers, "Service-Version": OLD } }),
    );
    expect(list.data.map((e) => e.targetRatingsPerComparison)).toEqual([3]);
  });

  it("answers a team pinned to the old version in it, unless the request names the newest", async () => {
    const { headers } = await team(OLD);
    const created = await call(EvaluationBefore, `${server.api}/evaluations`, {
      method: "POST",
      headers,
      body: BODY,
    });
    expectStatus(created, 201);
    expect(created.headers.get("service-version")).toBe(OLD);
    expect(created.body.ratingDeadline).toBe("2030-01-02T03:04:05.000Z");

    const newest = await call(Evaluation, `${server.api}/evaluations/${created.body.id}`, {
      headers: { ...headers, "Service-Version": NEW },
    });
    expectStatus(newest, 200);
    expect(newest.headers.get("service-version")).toBe(NEW);
    expect(newest.body.ratingWindow.targetRatingsPerComparison).toBe(3);
  });

  it("replays an idempotent request in the version of the replay", async () => {
    const { headers } = await team();
    const first = await call(Evaluation, `${server.api}/evaluations`, {
      method: "POST",
      headers: { ...headers, "Idempotency-Key": "versions-replay" },
      body: BODY,
    });
    expectStatus(first, 201);
    const replay = await call(EvaluationBefore, `${server.api}/evaluations`, {
      method: "POST",
      headers: { ...headers, "Idempotency-Key": "versions-replay", "Service-Version": OLD },
      body: BODY,
    });
    expectStatus(replay, 201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.id).toBe(first.body.id);
    expect(replay.body.targetRatingsPerComparison).toBe(3);
  });

  it("answers the dashboard's signed-in user, bound to no team, in the newest version", async () => {
    const { user } = await team(OLD);
    const res = await call(EvaluationList, `${server.api}/evaluations`, {
      headers: sessionHeaders(server, user),
    });
    expectStatus(res, 200);
    expect(res.headers.get("service-version")).toBe(NEW);
  });

  it("refuses an unknown version with 400 api_version_unknown listing the known ones", async () => {
    const { headers } = await team();
    for (const version of ["2026-01-01", "latest", ""]) {
      const res = await call(z.never(), `${server.api}/evaluations`, {
        headers: { ...headers, "Service-Version": version },
      });
      expectError(res, 400, {
        type: "invalid_request_error",
        code: "api_version_unknown",
        param: "Service-Version",
      });
      expect(res.body.error.message).toContain(API_VERSIONS.join(", "));
    }
  });
});

describe("webhook payloads", () => {
  it("renders each endpoint's deliveries in the version it was created under, signed as sent", async () => {
    const { user, headers } = await team();
    const old = await createEndpoint(
      server,
      { ...headers, "Service-Version": OLD },
      { url: `${receiver.url}/old`, enabled_events: ["evaluation.created"] },
    );
    const current = await createEndpoint(server, headers, {
      url: `${receiver.url}/new`,
      enabled_events: ["evaluation.created"],
    });
    expect(old.apiVersion).toBe(OLD);
    expect(current.apiVersion).toBe(NEW);
    // The endpoint keeps its version whichever version reads it.
    const read = await call(WebhookEndpoint, `${server.api}/webhooks/${old.id}`, { headers });
    expect(bodyOf(read).apiVersion).toBe(OLD);

    const created = await call(Evaluation, `${server.api}/evaluations`, {
      method: "POST",
      headers,
      body: BODY,
    });
    expectStatus(created, 201);
    // The production loop, with the renderer it is wired with.
    const loop = webhookDeliveryLoop(server.app.services);
    try {
      await loop.run();
    } finally {
      await loop.close?.();
    }
    const byPath = Object.fromEntries(receiver.requests.map((r) => [r.path, r]));
    const oldReq = byPath["/hooks/old"];
    const newReq = byPath["/hooks/new"];
    expect(oldReq && newReq).toBeTruthy();
    await verify(oldReq!.body, oldReq!.headers, old.secret);
    await verify(newReq!.body, newReq!.headers, current.secret);

    const [row] = await server.database.db.select().from(events).where(eq(events.objectId, created.body.id));
    expect(newReq!.body).toBe(row!.payload);
    const oldBody = JSON.parse(oldReq!.body);
    const newBody = JSON.parse(newReq!.body);
    expect(newBody.api_version).toBe(NEW);
    expect(newBody.data.object.ratingWindow).toEqual({
      closesAt: "2030-01-02T03:04:05.000Z",
      targetRatingsPerComparison: 3,
    });
    expect(oldBody.api_version).toBe(OLD);
    expect(oldBody.team_id).toBe(user.teamId);
    expect(oldBody.id).toBe(newBody.id);
    expect(oldBody.data.object).not.toHaveProperty("ratingWindow");
    expect(oldBody.data.object).toMatchObject({
      id: created.body.id,
      ratingDeadline: "2030-01-02T03:04:05.000Z",
      targetRatingsPerComparison: 3,
    });
  });

  it("gives endpoints of teams from before pinning the first version", async () => {
    const { headers } = await team(FIRST_API_VERSION);
    const endpoint = await createEndpoint(server, headers, {
      url: `${receiver.url}/pinned`,
      enabled_events: ["*"],
    });
    expect(endpoint.apiVersion).toBe(FIRST_API_VERSION);
  });
});

describe("the OpenAPI document", () => {
  it("lists every version with its changes and describes the newest", async () => {
    const res = await callRaw(`${server.api}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = res.body as {
      info: { description: string; "x-api-versions": { version: string; changes: string[] }[] };
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(doc.info["x-api-versions"].map((v) => v.version)).toEqual([NEW, OLD]);
    expect(doc.info["x-api-versions"][0]!.changes.join(" ")).toContain("ratingWindow");
    expect(doc.info.description).toContain("## API versions");
    expect(doc.info.description).toContain(`**${NEW}** (newest)`);
    expect(Object.keys(doc.components.schemas.Evaluation!.properties!)).toContain("ratingWindow");
    expect(Object.keys(doc.components.schemas.Evaluation!.properties!)).not.toContain("ratingDeadline");
  });
});
