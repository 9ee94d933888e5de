import { randomUUID } from "node:crypto";
import { ApiKeyList, ApiKeyWithSecret, Comparison, Evaluation, EvaluationList } from "@rubricon/contracts";
import { idempotencyRecords } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CLAIM_LEASE_MS, requestFingerprint } from "../src/http/idempotency";
import { expectError, expectStatus, SSE_BODY } from "./helpers/assertions";
import {
  bearer,
  bodyOf,
  call,
  mintApiKey,
  mintOAuthToken,
  sessionHeaders,
  signUp,
  type TestUser,
} from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let user: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server, "idem");
  key = await mintApiKey(server, user, ["evaluations:*"]);
});
afterAll(() => server?.close());

const create = (idempotencyKey: string, body: Record<string, unknown> = SSE_BODY, credential = key) =>
  call(Evaluation, `${server.api}/evaluations`, {
    method: "POST",
    headers: { ...bearer(credential), "Idempotency-Key": idempotencyKey },
    body,
  });
const listIds = async (credential = key): Promise<string[]> =>
  bodyOf(
    await call(EvaluationList, `${server.api}/evaluations?limit=100`, {
      headers: bearer(credential),
    }),
  ).data.map((e) => e.id);

describe("Idempotency-Key", () => {
  it("replays the first response for the same key and body", async () => {
    const before = await listIds();
    const k = randomUUID();
    const first = await create(k);
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const second = await create(k);
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    expect((await listIds()).length).toBe(before.length + 1);
  });

  it("treats a body with reordered keys as the same body", async () => {
    const k = randomUUID();
    const first = await create(k, { name: "Order", type: "SSE" });
    const second = await create(k, { type: "SSE", name: "Order" });
    expect(bodyOf(second).id).toBe(bodyOf(first).id);
  });

  it("answers 409 idempotency_key_reused for the same key with another body", async () => {
    const k = randomUUID();
    expect((await create(k)).status).toBe(201);
    const before = await listIds();
    const res = await create(k, { ...SSE_BODY, name: "Something else" });
    expectError(res, 409, {
      type: "invalid_request_error",
      code: "idempotency_key_reused",
    });
    expect(await listIds()).toEqual(before);
  });

  it("answers 409 for the same key on another route", async () => {
    const k = randomUUID();
    const e = await create(k);
    const res = await call(Comparison, `${server.api}/evaluations/${bodyOf(e).id}/comparisons`, {
      method: "POST",
      headers: { ...bearer(key), "Idempotency-Key": k },
      body: SSE_BODY,
    });
    expectError(res, 409, {
      type: "invalid_request_error",
      code: "idempotency_key_reused",
    });
  });

  it("refuses a key longer than 255 characters and accepts 255", async () => {
    const res = await create("k".repeat(256));
    expectError(res, 400, {
      type: "invalid_request_error",
      param: "Idempotency-Key",
    });
    expect((await create("k".repeat(255))).status).toBe(201);
  });

  it("does not keep a failed request, so the same key can be retried once the request is fixed", async () => {
    const k = randomUUID();
    const first = await create(k, { type: "SSE" });
    expectError(first, 400, {
      type: "invalid_request_error",
      code: "parameter_missing",
      param: "name",
    });
    const before = await listIds();
    const fixed = await create(k, SSE_BODY);
    expectStatus(fixed, 201);
    expect(fixed.headers.get("idempotent-replayed")).toBeNull();
    const replay = await create(k, SSE_BODY);
    expect(bodyOf(replay).id).toBe(fixed.body.id);
    expect((await listIds()).length).toBe(before.length + 1);
  });

  it("creates exactly one evaluation for 10 concurrent identical requests", async () => {
    const before = await listIds();
    const k = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => create(k, { ...SSE_BODY, name: "Concurrent" })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    const createdIds = new Set(results.map((r) => bodyOf(r).id));
    expect(createdIds.size).toBe(1);
    expect(results.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(9);
    const after = await listIds();
    expect(after.length).toBe(before.length + 1);
    expect(after).toContain([...createdIds][0]);
  });

  it("keeps keys of different teams independent", async () => {
    const other = await signUp(server, "idem-other");
    const otherKey = await mintApiKey(server, other, ["evaluations:*"]);
    const k = randomUUID();
    const mine = await create(k);
    const theirs = await create(k, SSE_BODY, otherKey);
    expectStatus(theirs, 201);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect(theirs.body.id).not.toBe(bodyOf(mine).id);
    expect(theirs.body.teamId).toBe(other.teamId);
    // A different body is fine on the other team as well.
    expect((await create(randomUUID(), { ...SSE_BODY, name: "x" }, otherKey)).status).toBe(201);
    expect(await listIds(otherKey)).toContain(theirs.body.id);
  });

  it("keeps keys of two API keys of the same team apart: a replay answers only the credential that made it", async () => {
    const secondKey = await mintApiKey(server, user, ["evaluations:*"]);
    const k = randomUUID();
    const first = await create(k);
    const second = await create(k, SSE_BODY, secondKey);
    expectStatus(second, 201);
    expect(second.body.id).not.toBe(bodyOf(first).id);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    const again = await create(k, SSE_BODY, secondKey);
    expect(bodyOf(again).id).toBe(second.body.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });

  it("checks the route's scope before replaying", async () => {
    // Two tokens of one user, app and team share their keys; the second lacks the scope the route needs.
    const writer = await mintOAuthToken(server, {
      sub: user.userId,
      team: user.teamId,
      scope: "evaluations:write",
    });
    const reader = await mintOAuthToken(server, {
      sub: user.userId,
      team: user.teamId,
      scope: "templates:read",
    });
    const k = randomUUID();
    expect((await create(k, SSE_BODY, writer)).status).toBe(201);
    const replayed = await create(k, SSE_BODY, reader);
    expectError(replayed, 403, { type: "authorization_error", code: "missing_required_scope" });
    expect(JSON.stringify(replayed.body)).not.toContain("eval_");
  });

  it("never keeps a secret shown once, and refuses to replay its request", async () => {
    const k = randomUUID();
    const mint = () =>
      call(ApiKeyWithSecret, `${server.api}/api-keys`, {
        method: "POST",
        headers: { ...sessionHeaders(server, user), "Idempotency-Key": k },
        body: { name: "idempotent key", scopes: ["templates:read"] },
      });
    const first = await mint();
    expectStatus(first, 201);
    expect(first.body.key).toMatch(/^ak_live_/);
    const stored = await server.database.db
      .select()
      .from(idempotencyRecords)
      .where(eq(idempotencyRecords.key, k));
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored[0]!.responseBody)).not.toContain(first.body.key);
    expect(JSON.stringify(stored[0]!.responseBody)).toContain(first.body.id);

    const second = await mint();
    expectError(second, 409, { type: "invalid_request_error", code: "idempotency_replay_unavailable" });
    expect(second.body.error.details).toEqual({ id: first.body.id });
    expect(JSON.stringify(second.body)).not.toContain(first.body.key);
    const keys = await call(ApiKeyList, `${server.api}/api-keys`, { headers: sessionHeaders(server, user) });
    expect(bodyOf(keys).data.filter((key) => key.name === "idempotent key")).toHaveLength(1);
  });

  it("lets a retry take over a claim whose request died, once its lease has run out", async () => {
    // A process killed mid-request leaves its claim in progress; its work rolled back with its transaction.
    const k = randomUUID();
    const scope = `user:${user.userId}`;
    const record = (ageMs: number) => ({
      scope,
      key: k,
      requestFingerprint: requestFingerprint("POST", "/evaluations", SSE_BODY),
      state: "in_progress" as const,
      createdAt: new Date(Date.now() - ageMs),
    });
    await server.database.db.insert(idempotencyRecords).values(record(CLAIM_LEASE_MS + 5_000));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const headers = { ...sessionHeaders(server, user), "Idempotency-Key": k };
      const first = await call(Evaluation, `${server.api}/evaluations`, {
        method: "POST",
        headers,
        body: SSE_BODY,
      });
      expectStatus(first, 201);
      // The server's log line is read here when it runs in this process; a server from dist/ logs on its own.
      if (server.target === "sources") {
        expect(JSON.parse(String(warn.mock.calls[0]![0]))).toMatchObject({
          msg: "idempotency_claim_taken_over",
          key: k,
        });
      }
      const again = await call(Evaluation, `${server.api}/evaluations`, {
        method: "POST",
        headers,
        body: SSE_BODY,
      });
      expect(bodyOf(again).id).toBe(first.body.id);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
    } finally {
      warn.mockRestore();
    }
  });

  it("applies to session callers as well", async () => {
    const k = randomUUID();
    const headers = { ...sessionHeaders(server, user), "Idempotency-Key": k };
    const first = await call(Evaluation, `${server.api}/evaluations`, {
      method: "POST",
      headers,
      body: SSE_BODY,
    });
    const second = await call(Evaluation, `${server.api}/evaluations`, {
      method: "POST",
      headers,
      body: SSE_BODY,
    });
    expectStatus(first, 201);
    expect(bodyOf(second).id).toBe(first.body.id);
  });
});
