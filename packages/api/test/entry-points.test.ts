import { request as httpRequest } from "node:http";
import { API_VERSION, ErrorEnvelope, Evaluation, ShareView, WhoAmI } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError, expectStatus, UUID_V7 } from "./helpers/assertions";
import {
  bearer,
  bodyOf,
  call,
  callRaw,
  errorOf,
  mintApiKey,
  readAnswer,
  SignedIn,
  SignedUp,
  sessionHeaders,
  signUp,
  type TestUser,
} from "./helpers/clients";
import { PublicRaterStarted, runningEvaluation, startPublicRater } from "./helpers/ratings";
import { startTestServer, type TestServer } from "./helpers/server";

/** Every HTTP entry point (/api/v1, /api/trpc, /api/auth, /api/share) answers through the one pipeline. */
let server: TestServer;
let user: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer({
    sources: "it hands requests to the app's pipeline directly, as the Next.js route handlers do",
  });
  user = await signUp(server, "entries");
  key = await mintApiKey(server, user, ["*"]);
});
afterAll(() => server?.close());

function expectPipelineHeaders(headers: Headers): void {
  expect(headers.get("x-request-id")).toMatch(UUID_V7);
  expect(headers.get("service-version")).toBe(API_VERSION);
  expect(headers.get("x-content-type-options")).toBe("nosniff");
}

/** Sends `total` bytes in chunks with no Content-Length, as a client streaming a body does. */
function postChunked(
  url: string,
  total: number,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; sent: number; connection?: string }> {
  const chunk = Buffer.alloc(64 * 1024, "a");
  return new Promise((resolve, reject) => {
    let sent = 0;
    const req = httpRequest(url, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json", "Transfer-Encoding": "chunked" },
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () =>
        resolve({ status: res.statusCode!, body, sent, connection: res.headers.connection }),
      );
    });
    req.on("error", reject);
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

describe("every entry point", () => {
  it("answers with a request id and Service-Version, and its errors in the envelope", async () => {
    const cases = [
      { url: `${server.url}/api/auth/nowhere`, method: "POST", status: 404, code: "route_not_found" },
      { url: `${server.url}/api/auth/sign-in`, method: "GET", status: 405, code: "method_not_allowed" },
      { url: `${server.url}/api/share/no-such-token`, method: "GET", status: 404, code: "share_not_found" },
      { url: `${server.url}/api/share/a/b/c`, method: "GET", status: 404, code: "route_not_found" },
      { url: `${server.api}/nowhere`, method: "GET", status: 404, code: "route_not_found" },
    ].map((c) => ({ ...c, type: c.status === 404 ? "not_found_error" : "invalid_request_error" }));
    for (const c of cases) {
      const res = await call(z.never(), c.url, { method: c.method });
      expectPipelineHeaders(res.headers);
      expectError(res, c.status, { type: c.type, code: c.code });
      expect(res.body.error.request_id).toBe(res.headers.get("x-request-id"));
    }
    const signedIn = await call(SignedIn, `${server.url}/api/auth/sign-in`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: { email: user.email, password: user.password },
    });
    expect(signedIn.status).toBe(200);
    expectPipelineHeaders(signedIn.headers);
    expect(signedIn.headers.get("cache-control")).toBe("no-store");
  });

  it("serves the same pipeline from a Web Request (next dev's route handlers)", async () => {
    const res = await server.app.handle(
      new Request(`${server.url}/api/auth/sign-in`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Content-Length": String(64 * 1024) },
        body: "x".repeat(64 * 1024),
      }),
    );
    expectPipelineHeaders(res.headers);
    expect(res.status).toBe(413);
    expect(errorOf(await readAnswer(SignedIn, res))).toMatchObject({
      type: "invalid_request_error",
      code: "request_too_large",
    });
    const whoami = await server.app.handle(
      new Request(`${server.api}/auth/whoami`, { headers: bearer(key) }),
    );
    expect(whoami.status).toBe(200);
    expect(bodyOf(await readAnswer(WhoAmI, whoami)).userId).toBe(user.userId);
  });
});

describe("request bodies", () => {
  it("are refused past the cap by their declared length, with the connection closed", async () => {
    const big = JSON.stringify({ name: "x".repeat(1024 * 1024) });
    const res = await call(Evaluation, `${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: big,
    });
    expectError(res, 413, { type: "invalid_request_error", code: "request_too_large" });
    expect(res.headers.get("connection")).toBe("close");
    expectPipelineHeaders(res.headers);
  });

  it("are counted while they stream in, before sign-in, and the rest is never read", async () => {
    const signIn = await postChunked(`${server.url}/api/auth/sign-in`, 60 * 1024 * 1024);
    expect(signIn.status).toBe(413);
    expect(ErrorEnvelope.parse(JSON.parse(signIn.body)).error.code).toBe("request_too_large");
    // The server stopped reading: past the bound it discards (16 MB) it answers, holds the connection open a moment
    // so the client reads the answer, then closes; the client could not push anywhere near the 60 MB it meant to.
    expect(signIn.sent).toBeLessThan(30 * 1024 * 1024);
    // The answer went out with the connection's close announced, before the close itself (a staged close).
    expect(signIn.connection).toBe("close");

    const rest = await postChunked(`${server.api}/evaluations`, 3 * 1024 * 1024, bearer(key));
    expect(rest.status).toBe(413);
  });

  it("have small caps where small bodies are all a route takes", async () => {
    const res = await call(SignedUp, `${server.url}/api/auth/sign-up`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: { email: "a@example.com", password: "x".repeat(20_000), name: "A" },
    });
    expectError(res, 413, { type: "invalid_request_error", code: "request_too_large" });
    const share = await call(PublicRaterStarted, `${server.url}/api/share/some-token/start`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: { name: "x".repeat(20_000) },
    });
    expectError(share, 413, { type: "invalid_request_error", code: "request_too_large" });
  });

  it("refused early still reach Node's fetch: an 11 MB multipart upload and a 5 MB share rating get their 413", async () => {
    const { evaluation } = await runningEvaluation(server, bearer(key), {
      extra: { shareAccess: "ANYONE_WITH_LINK" },
    });
    const rater = await startPublicRater(server, evaluation.shareToken);
    /** A body the client is still sending after the server has decided, as a slow or large upload is. */
    const streamed = (total: number, head: Uint8Array = new Uint8Array(0)) => {
      let sent = -1;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent === -1) {
            sent = 0;
            controller.enqueue(head);
          } else if (sent >= total) controller.close();
          else {
            sent += 64 * 1024;
            await new Promise((resolve) => setTimeout(resolve, 1));
            controller.enqueue(new Uint8Array(64 * 1024));
          }
        },
      });
    };
    const boundary = "----rubricon";
    const partHead = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
    );
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(11 * 1024 * 1024)], { type: "image/png" }), "big.png");
    const shareUrl = `${server.url}/api/share/${evaluation.shareToken}/ratings`;
    const shareHeaders = { "Content-Type": "application/json", Origin: server.url, Cookie: rater.cookie! };
    const attempts: [string, () => Promise<Response>][] = [
      // As the SDK sends a file: FormData, with its length declared.
      [
        "multipart",
        () =>
          fetch(`${server.api}/files`, {
            method: "POST",
            headers: { Authorization: `Bearer ${key}` },
            body: form,
          }),
      ],
      // Streamed with no declared length: the server reads 10 MB before it can tell, the client is still sending.
      [
        "streamed multipart",
        () =>
          fetch(`${server.api}/files`, {
            method: "POST",
            headers: {
              Authorization: `Bearer ${key}`,
              "Content-Type": `multipart/form-data; boundary=${boundary}`,
            },
            body: streamed(11 * 1024 * 1024, partHead),
            duplex: "half",
          } as RequestInit),
      ],
      [
        "share rating",
        () =>
          fetch(shareUrl, {
            method: "POST",
            headers: shareHeaders,
            body: JSON.stringify({ x: "a".repeat(5 * 1024 * 1024) }),
          }),
      ],
      [
        "streamed share rating",
        () =>
          fetch(shareUrl, {
            method: "POST",
            headers: shareHeaders,
            body: streamed(5 * 1024 * 1024),
            duplex: "half",
          } as RequestInit),
      ],
    ];
    for (const [label, send] of attempts) {
      const res = await send().catch((err: Error & { cause?: { code?: string } }) => {
        throw new Error(`${label}: ${err.cause?.code ?? err.message}`);
      });
      const body = ErrorEnvelope.parse(await res.json());
      expect({ label, status: res.status }).toEqual({ label, status: 413 });
      expect(body.error.code).toBe(label.endsWith("multipart") ? "file_too_large" : "request_too_large");
    }
    // The connection the refusals left is usable: the next request answers normally.
    expect((await fetch(`${server.api}/auth/whoami`, { headers: bearer(key) })).status).toBe(200);
  });

  it("nested deeper than 64 levels are invalid JSON (400), not a stack overflow", async () => {
    const deep = `${"[".repeat(10_000)}1${"]".repeat(10_000)}`;
    for (const [method, url, headers] of [
      ["POST", `${server.api}/evaluations`, bearer(key)],
      ["PATCH", `${server.api}/settings/byok`, sessionHeaders(server, user)],
    ] as const) {
      const res = await fetch(url, { method, headers, body: `{"name":${deep}}` });
      expect(res.status).toBe(400);
      expect(ErrorEnvelope.parse(await res.json()).error).toMatchObject({
        type: "invalid_request_error",
        code: "invalid_json",
      });
    }
    // Brackets inside strings are text, not nesting; 64 real levels are still parsed (and judged by the schema).
    const res = await fetch(`${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: JSON.stringify({ name: "[".repeat(5000), x: JSON.parse(`${"[".repeat(63)}1${"]".repeat(63)}`) }),
    });
    expect(res.status).toBe(400);
    expect(ErrorEnvelope.parse(await res.json()).error.code).not.toBe("invalid_json");
  });

  it("that are not UTF-8 are invalid JSON, not mangled", async () => {
    const res = await fetch(`${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    });
    expect(res.status).toBe(400);
    expect(errorOf(await readAnswer(Evaluation, res))).toMatchObject({
      code: "invalid_json",
      message: "The request body is not valid UTF-8.",
    });
  });
});

describe("the dashboard's tRPC endpoint", () => {
  const batch = (calls: string[]) =>
    `${server.url}/api/trpc/${calls.join(",")}?batch=1&input=${encodeURIComponent(
      JSON.stringify(Object.fromEntries(calls.map((_, i) => [i, {}]))),
    )}`;

  it("meters each call of a batch as a request", async () => {
    const headers = sessionHeaders(server, user);
    const first = await fetch(batch(["auth.whoami"]), { headers });
    expect(first.status).toBe(200);
    expectPipelineHeaders(first.headers);
    const before = Number(first.headers.get("x-ratelimit-remaining"));
    const three = await fetch(batch(["auth.whoami", "auth.whoami", "auth.whoami"]), { headers });
    expect(three.status).toBe(200);
    const results = (await three.json()) as { result: { data: { userId: string } } }[];
    expect(results.map((r) => r.result.data.userId)).toEqual([user.userId, user.userId, user.userId]);
    expect(Number(three.headers.get("x-ratelimit-remaining"))).toBe(before - 3);
  });

  it("answers a stale session in tRPC's own format, so the dashboard sends the user to sign in", async () => {
    const res = await callRaw(batch(["auth.whoami", "usage.get"]), {
      headers: { Cookie: "rubricon_session=stale-session-token" },
    });
    expect(res.status).toBe(401);
    expectPipelineHeaders(res.headers);
    expect(res.body).toHaveLength(2);
    for (const item of res.body as { error: { code: number; data: Record<string, unknown> } }[]) {
      expect(item.error.data.apiError).toMatchObject({
        type: "authentication_error",
        code: "invalid_session",
      });
      // tRPC's own fields agree with the status: UNAUTHORIZED (-32001), 401, not INTERNAL_SERVER_ERROR / 500.
      expect(item.error.code).toBe(-32001);
      expect(item.error.data).toMatchObject({ code: "UNAUTHORIZED", httpStatus: 401 });
    }
  });

  it("refuses a batch of more than 10 calls", async () => {
    const res = await call(z.never(), batch(Array.from({ length: 11 }, () => "auth.whoami")), {
      headers: sessionHeaders(server, user),
    });
    expectError(res, 400, { type: "invalid_request_error", code: "batch_too_large" });
    expectPipelineHeaders(res.headers);
  });
});

describe("cookies", () => {
  it("that do not decode are a 401 on /api/v1, never a 500", async () => {
    const res = await call(WhoAmI, `${server.api}/auth/whoami`, {
      headers: { Cookie: "rubricon_session=%zz" },
    });
    expectError(res, 401, { type: "authentication_error", code: "invalid_session" });
  });

  it("that are stale or malformed count as signed out on a public share link", async () => {
    const { evaluation } = await runningEvaluation(server, bearer(key), {
      extra: { shareAccess: "ANYONE_WITH_LINK" },
    });
    for (const cookie of ["rubricon_session=%zz", "rubricon_session=stale-session-token"]) {
      const res = await call(ShareView, `${server.url}/api/share/${evaluation.shareToken}`, {
        headers: { Cookie: cookie },
      });
      expectStatus(res, 200);
      expect(res.body.evaluation.name).toBe(evaluation.name);
    }
  });
});
