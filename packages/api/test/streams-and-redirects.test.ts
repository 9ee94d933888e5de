import type { Server } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { parse as parseOpenApi } from "@readme/openapi-parser";
import { ApiError } from "@rubricon/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpSurface } from "../src/app";
import { listen } from "../src/http/node-server";
import type { Pipeline } from "../src/http/pipeline";
import type { ServerSentEvent } from "../src/request/reply";
import { apiProcedure, router } from "../src/trpc/init";
import { RedirectTarget, redirectTo } from "../src/trpc/redirect";
import { expectError, UUID_V7 } from "./helpers/assertions";
import { bearer, call, mintApiKey, signUp } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";
import { nextEvent, type OpenStream, openStream, readFrames } from "./helpers/sse";

/**
 * The pipeline's event streams and redirects, on routes of their own mounted on the real pipeline (the app's
 * services, principals, limits and writers): the autouser stream, chat replies and file downloads are built on
 * exactly this.
 */
const producers = { started: 0, finished: 0 };
const Signed = z.object({ id: z.string(), sig: z.string() });

const testRouter = router({
  ticks: apiProcedure
    .meta({
      stream: {
        method: "GET",
        path: "/test/ticks",
        summary: "Count up",
        // A tag the document describes: the generator refuses one without a description.
        tags: ["Events"],
        events: { tick: "`{n}`, the count so far" },
      },
      scope: "evaluations:read",
    })
    .input(
      z.object({
        count: z.coerce.number().int().min(0).max(10_000).default(5),
        intervalMs: z.coerce.number().int().min(0).max(5_000).default(0),
        failAt: z.coerce.number().int().optional(),
        missing: z.stringbool().optional(),
        lastEventId: z.string().regex(/^\d+$/).optional(),
      }),
    )
    .subscription(async function* ({ input, signal }): AsyncGenerator<ServerSentEvent> {
      if (input.missing) throw ApiError.notFound("evaluation_not_found", "No such evaluation.");
      producers.started++;
      try {
        const from = input.lastEventId ? Number(input.lastEventId) + 1 : 1;
        for (let n = from; n <= input.count; n++) {
          if (n > from && input.intervalMs > 0) await sleep(input.intervalMs, undefined, { signal });
          if (n === input.failAt) throw new Error("the producer broke: secret detail");
          yield { id: String(n), event: "tick", data: { n } };
        }
      } finally {
        producers.finished++;
      }
    }),
  download: apiProcedure
    .meta({
      openapi: { method: "GET", path: "/test/files/{id}", tags: ["Files"] },
      successStatus: 302,
      scope: "evaluations:read",
    })
    .input(z.object({ id: z.string() }))
    .output(RedirectTarget)
    .query(({ input, ctx }) => {
      if (input.id === "missing") throw ApiError.notFound("resource_not_found", "No such file.");
      return redirectTo(`${ctx.services.env.baseUrl}/api/v1/test/signed/${input.id}?sig=abc`);
    }),
  signed: apiProcedure
    .meta({
      openapi: { method: "GET", path: "/test/signed/{id}", tags: ["Files"] },
      scope: "evaluations:read",
    })
    .input(z.object({ id: z.string(), sig: z.string() }))
    .output(Signed)
    .query(({ input }) => input),
});

let server: TestServer;
let pipeline: Pipeline;
let http: Server;
let api: string;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ env: { SSE_HEARTBEAT_MS: "100" } });
  pipeline = createHttpSurface(server.app.services, testRouter).pipeline;
  const listening = await listen(pipeline);
  http = listening.server;
  api = `${listening.url}/api/v1`;
  const user = await signUp(server, "streams");
  key = await mintApiKey(server, user, ["evaluations:read"]);
});
afterAll(async () => {
  await new Promise<void>((resolve) => http?.close(() => resolve()));
  await server?.close();
});

async function eventually(check: () => boolean, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(20);
  }
}

async function collect(stream: OpenStream): Promise<unknown[]> {
  const seen: unknown[] = [];
  for (let e = await nextEvent(stream); e; e = await nextEvent(stream)) seen.push(e);
  return seen;
}

describe("server-sent event streams", () => {
  it("stream events over HTTP with ids and names, and end when the producer ends", async () => {
    const stream = await openStream(`${api}/test/ticks?count=3`, bearer(key));
    const { response } = stream;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-request-id")).toMatch(UUID_V7);
    expect(response.headers.get("x-ratelimit-limit")).not.toBeNull();
    expect(await collect(stream)).toEqual(
      [1, 2, 3].map((n) => ({ id: String(n), event: "tick", data: { n } })),
    );
  });

  it("resume after a dropped connection from Last-Event-ID, without repeating or skipping an event", async () => {
    const first = await openStream(`${api}/test/ticks?count=40&intervalMs=30`, bearer(key));
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) seen.push((await nextEvent(first))!.id!);
    first.close();
    const resumed = await openStream(`${api}/test/ticks?count=6&intervalMs=0`, {
      ...bearer(key),
      "Last-Event-ID": seen.at(-1)!,
    });
    for (const e of (await collect(resumed)) as { id: string }[]) seen.push(e.id);
    expect(seen).toEqual(["1", "2", "3", "4", "5", "6"]);
  });

  it("stop the producer when the client goes away", async () => {
    const before = { ...producers };
    const stream = await openStream(`${api}/test/ticks?count=10000&intervalMs=20`, bearer(key));
    await nextEvent(stream);
    await nextEvent(stream);
    expect(producers.started).toBe(before.started + 1);
    stream.close();
    await eventually(() => producers.finished === before.finished + 1);
  });

  it("send a heartbeat comment while nothing happens", async () => {
    const stream = await openStream(`${api}/test/ticks?count=2&intervalMs=450`, bearer(key));
    const frames = [];
    for (let f = await stream.next(); f; f = await stream.next()) frames.push(f);
    const heartbeats = frames.filter((f) => f.comment === "heartbeat").length;
    expect(frames.filter((f) => f.event === "tick")).toHaveLength(2);
    expect(heartbeats).toBeGreaterThanOrEqual(2);
  });

  it("answer an error met before the first event as a JSON envelope with its real status", async () => {
    const missing = await call(z.never(), `${api}/test/ticks?missing=true`, { headers: bearer(key) });
    expectError(missing, 404, { type: "not_found_error", code: "evaluation_not_found" });

    const anonymous = await call(z.never(), `${api}/test/ticks`);
    expectError(anonymous, 401, { type: "authentication_error", code: "authentication_required" });

    const invalid = await call(z.never(), `${api}/test/ticks?count=many`, { headers: bearer(key) });
    expectError(invalid, 400, { type: "invalid_request_error", code: "parameter_invalid" });
    expect(invalid.body.error.param).toBe("count");
  });

  it("end with an `error` event carrying the envelope when the producer fails mid-stream", async () => {
    const stream = await openStream(`${api}/test/ticks?count=5&failAt=3`, bearer(key));
    const frames = await collect(stream);
    expect(frames.slice(0, 2)).toEqual([1, 2].map((n) => ({ id: String(n), event: "tick", data: { n } })));
    const failure = frames[2] as { event: string; data: { error: Record<string, string> } };
    expect(failure.event).toBe("error");
    expect(failure.data.error).toMatchObject({ type: "api_error", code: "internal_error" });
    expect(failure.data.error.request_id).toBe(stream.response.headers.get("x-request-id"));
    expect(JSON.stringify(failure)).not.toContain("secret detail");
    expect(frames).toHaveLength(3);
  });

  it("work the same from a Web Request (the Next.js route handlers)", async () => {
    const before = producers.finished;
    const controller = new AbortController();
    const response = await pipeline.handleWeb(
      new Request(`${api}/test/ticks?count=100&intervalMs=20`, {
        headers: { ...bearer(key), "Last-Event-ID": "41" },
        signal: controller.signal,
      }),
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const stream = readFrames(response, () => controller.abort());
    expect(await nextEvent(stream)).toEqual({ id: "42", event: "tick", data: { n: 42 } });
    expect(await nextEvent(stream)).toEqual({ id: "43", event: "tick", data: { n: 43 } });
    stream.close();
    await eventually(() => producers.finished === before + 1);
  });
});

describe("redirects", () => {
  it("answer 302 with Location and Cache-Control: no-store, and no body", async () => {
    const res = await fetch(`${api}/test/files/file_1`, { headers: bearer(key), redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${server.url}/api/v1/test/signed/file_1?sig=abc`);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-request-id")).toMatch(UUID_V7);
    expect(await res.text()).toBe("");
  });

  it("can be followed by a client to the target", async () => {
    const local = `${api}/test/files/file_2`;
    const res = await fetch(local, { headers: bearer(key), redirect: "manual" });
    const target = new URL(res.headers.get("location")!);
    const followed = await call(Signed, `${api}${target.pathname.slice("/api/v1".length)}${target.search}`, {
      headers: bearer(key),
    });
    expect(followed.status).toBe(200);
    expect(followed.body).toEqual({ id: "file_2", sig: "abc" });
  });

  it("answer errors as the envelope, not a redirect", async () => {
    const res = await call(z.never(), `${api}/test/files/missing`, { headers: bearer(key) });
    expectError(res, 404, { type: "not_found_error", code: "resource_not_found" });
    expect(res.headers.get("location")).toBeNull();
  });
});

describe("the OpenAPI document", () => {
  const docOf = () =>
    createHttpSurface(server.app.services, testRouter).openApiDocument() as {
      // biome-ignore lint/suspicious/noExplicitAny: operations are asserted field by field
      paths: Record<string, Record<string, Record<string, any>>>;
    };

  it("describes an event stream as text/event-stream with Last-Event-ID and its query parameters", async () => {
    const doc = docOf();
    await parseOpenApi(structuredClone(doc) as never);
    const op = doc.paths["/test/ticks"]!.get!;
    expect(Object.keys(op.responses["200"].content)).toEqual(["text/event-stream"]);
    expect(op.responses["401"]).toEqual({ $ref: "#/components/responses/Error401" });
    const params = op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`);
    expect(params).toEqual(
      expect.arrayContaining(["header:Last-Event-ID", "query:count", "query:intervalMs", "query:failAt"]),
    );
    expect(params).not.toContain("query:lastEventId");
    expect(op["x-events"]).toEqual({ tick: "`{n}`, the count so far" });
    expect(op["x-required-scope"]).toBe("evaluations:read");
  });

  it("describes a redirect as a 302 with Location and no 200", () => {
    const op = docOf().paths["/test/files/{id}"]!.get!;
    expect(op.responses["200"]).toBeUndefined();
    expect(op.responses["302"].headers.Location.schema).toEqual({ type: "string", format: "uri" });
    expect(op.responses["302"].headers["Cache-Control"].schema.const).toBe("no-store");
    expect(op.responses["302"].content).toBeUndefined();
  });
});
