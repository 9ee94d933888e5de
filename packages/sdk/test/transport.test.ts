import { afterEach, describe, expect, it, vi } from "vitest";
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthorizationError,
  InvalidRequestError,
  RateLimitError,
  Rubricon,
} from "../src";
import { backoffDelay, parseRetryAfter } from "../src/core/retry";
import { errorBody, type LocalServer, sendJson, startLocalServer } from "./helpers/local-server";

let server: LocalServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

const client = (opts: ConstructorParameters<typeof Rubricon>[0] = {}) =>
  new Rubricon({ apiKey: "ak_live_test", baseUrl: `${server!.url}/api/v1`, ...opts });

/** Backoff without waiting, for tests that count attempts rather than time them. */
const noJitter = () => vi.spyOn(Math, "random").mockReturnValue(0);

describe("retries", () => {
  it("honours Retry-After on 429 and then succeeds, reusing the POST's Idempotency-Key", async () => {
    server = await startLocalServer((_req, res, i) => {
      if (i === 0) {
        sendJson(res, 429, errorBody("rate_limit_error", "rate_limit_exceeded"), { "Retry-After": "1" });
      } else sendJson(res, 201, { id: "eval_1" });
    });
    const started = performance.now();
    const result = await client().request("POST", "/evaluations", { body: { name: "x" } });
    const elapsed = performance.now() - started;
    expect(result).toEqual({ id: "eval_1" });
    expect(server.requests).toHaveLength(2);
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(3_000);
    const [first, second] = server.requests;
    expect(first!.headers["idempotency-key"]).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(second!.headers["idempotency-key"]).toBe(first!.headers["idempotency-key"]);
    expect(second!.body).toBe(first!.body);
  });

  it("makes at most five attempts on 5xx, then throws APIError", async () => {
    noJitter();
    server = await startLocalServer((_req, res) =>
      sendJson(res, 503, errorBody("api_error", "feature_not_available"), { "X-Request-Id": "req-503" }),
    );
    const error = await client()
      .request("GET", "/webhooks")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ status: 503, code: "feature_not_available", type: "api_error" });
    expect(server.requests).toHaveLength(5);
  });

  it("follows maxRetries from the client and from the request", async () => {
    noJitter();
    server = await startLocalServer((_req, res) =>
      sendJson(res, 500, errorBody("api_error", "internal_error")),
    );
    await expect(client({ maxRetries: 0 }).request("GET", "/x")).rejects.toBeInstanceOf(APIError);
    expect(server.requests).toHaveLength(1);
    await expect(client().request("GET", "/x", { maxRetries: 2 })).rejects.toBeInstanceOf(APIError);
    expect(server.requests).toHaveLength(4);
    expect(() => client({ maxRetries: 5 })).toThrow(RangeError);
  });

  it("does not retry 4xx errors, nor 429 quota_exceeded, nor a Retry-After beyond a minute", async () => {
    noJitter();
    server = await startLocalServer((req, res) => {
      if (req.url === "/api/v1/quota") sendJson(res, 429, errorBody("rate_limit_error", "quota_exceeded"));
      else if (req.url === "/api/v1/later")
        sendJson(res, 429, errorBody("rate_limit_error", "rate_limit_exceeded"), { "Retry-After": "3600" });
      else sendJson(res, 403, errorBody("authorization_error", "missing_required_scope"));
    });
    const quota = await client()
      .request("GET", "/quota")
      .catch((e: unknown) => e);
    expect(quota).toBeInstanceOf(RateLimitError);
    expect((quota as RateLimitError).retryAfter).toBeUndefined();
    const later = await client()
      .request("GET", "/later")
      .catch((e: unknown) => e);
    expect((later as RateLimitError).retryAfter).toBe(3600);
    await expect(client().request("GET", "/scope")).rejects.toBeInstanceOf(AuthorizationError);
    expect(server.requests.map((r) => r.url)).toEqual(["/api/v1/quota", "/api/v1/later", "/api/v1/scope"]);
  });

  it("retries a reset connection and keeps the Idempotency-Key", async () => {
    noJitter();
    server = await startLocalServer((_req, res, i) => {
      if (i < 2) res.socket?.destroy();
      else sendJson(res, 201, { ok: true });
    });
    expect(await client().request("POST", "/evaluations", { body: {} })).toEqual({ ok: true });
    const keys = server.requests.map((r) => r.headers["idempotency-key"]);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
  });

  it("throws APIConnectionError when the server cannot be reached", async () => {
    noJitter();
    server = await startLocalServer((_req, res) => {
      res.socket?.destroy();
    });
    const error = await client({ maxRetries: 1 })
      .request("GET", "/x")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APITimeoutError);
    expect(error).toMatchObject({ type: "connection_error", status: undefined });
    expect(server.requests).toHaveLength(2);
  });

  it("uses exponential backoff with full jitter", () => {
    vi.spyOn(Math, "random").mockReturnValue(0.999_999);
    expect([0, 1, 2, 3, 4, 5].map((a) => Math.round(backoffDelay(a)))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
    vi.spyOn(Math, "random").mockReturnValue(0);
    expect(backoffDelay(3)).toBe(0);
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter("0.5")).toBe(500);
    expect(
      parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1)),
    ).toBe(10_000);
    expect(parseRetryAfter("soon")).toBeUndefined();
  });
});

describe("timeouts and aborts", () => {
  const hang = () => startLocalServer(() => new Promise(() => {}));

  it("fails an attempt that takes longer than the timeout with APITimeoutError", async () => {
    server = await hang();
    const started = performance.now();
    const error = await client({ timeout: 200, maxRetries: 0 })
      .request("GET", "/slow")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("retries timed-out attempts, each with its own timeout", async () => {
    noJitter();
    server = await hang();
    await expect(client().request("GET", "/slow", { timeout: 100, maxRetries: 2 })).rejects.toBeInstanceOf(
      APITimeoutError,
    );
    expect(server.requests).toHaveLength(3);
  });

  it("stops at once when the caller aborts, also while waiting to retry", async () => {
    server = await hang();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const error = await client()
      .request("GET", "/slow", { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(performance.now() - started).toBeLessThan(2_000);
    await server.close();

    server = await startLocalServer((_req, res) =>
      sendJson(res, 429, errorBody("rate_limit_error", "rate_limit_exceeded"), { "Retry-After": "30" }),
    );
    const waiting = new AbortController();
    setTimeout(() => waiting.abort(), 200);
    await expect(client().request("GET", "/x", { signal: waiting.signal })).rejects.toBeInstanceOf(
      APIUserAbortError,
    );
    expect(server.requests).toHaveLength(1);

    await expect(client().request("GET", "/x", { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      APIUserAbortError,
    );
    expect(server.requests).toHaveLength(1);
  });
});

describe("requests", () => {
  it("sends credentials, Service-Version, default headers and JSON", async () => {
    server = await startLocalServer((_req, res) => sendJson(res, 200, { ok: true }));
    const rubricon = new Rubricon({
      accessToken: "jwt-token",
      baseUrl: `${server.url}/api/v1`,
      serviceVersion: "2026-11-01",
      defaultHeaders: { "X-Trace": "t1" },
    });
    await rubricon.request("PATCH", "/teams/team_1", { body: { name: "New" }, headers: { "X-Extra": "e" } });
    const [request] = server.requests;
    expect(request!.headers).toMatchObject({
      authorization: "Bearer jwt-token",
      "service-version": "2026-11-01",
      "x-trace": "t1",
      "x-extra": "e",
      "content-type": "application/json",
      accept: "application/json",
    });
    expect(request!.headers["idempotency-key"]).toBeUndefined();
    expect(JSON.parse(request!.body)).toEqual({ name: "New" });
  });

  it("keeps the caller's own Idempotency-Key, given as an option or as a header", async () => {
    server = await startLocalServer((_req, res) => sendJson(res, 201, {}));
    await client().request("POST", "/a", { body: {}, idempotencyKey: "mine-1" });
    await client().request("POST", "/a", { body: {}, headers: { "idempotency-key": "mine-2" } });
    expect(server.requests.map((r) => r.headers["idempotency-key"])).toEqual(["mine-1", "mine-2"]);
  });

  it("serialises query parameters and skips undefined ones", async () => {
    server = await startLocalServer((_req, res) => sendJson(res, 200, {}));
    await client().request("GET", "/evaluations", {
      query: { limit: 5, status: undefined, ids: ["a", "b"], flag: false },
    });
    expect(server.requests[0]!.url).toBe("/api/v1/evaluations?limit=5&ids=a&ids=b&flag=false");
  });

  it("appends /api/v1 to a bare origin and keeps an explicit path", () => {
    expect(new Rubricon({ baseUrl: "https://rubricon.example.com/" }).baseUrl).toBe(
      "https://rubricon.example.com/api/v1",
    );
    expect(new Rubricon({ baseUrl: "https://example.com/rubricon/api/v1/" }).baseUrl).toBe(
      "https://example.com/rubricon/api/v1",
    );
    expect(() => new Rubricon({ apiKey: "a", accessToken: "b" })).toThrow(TypeError);
  });

  it("maps an error without the envelope by its status", async () => {
    server = await startLocalServer((_req, res) => {
      res.writeHead(405, { "Content-Type": "text/html" });
      res.end("<h1>Method Not Allowed</h1>");
    });
    const error = await client()
      .request("PUT", "/x")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({
      status: 405,
      type: "invalid_request_error",
      raw: "<h1>Method Not Allowed</h1>",
    });
  });
});
