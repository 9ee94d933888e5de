import { afterEach, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  type EventStream,
  parseServerSentEvents,
  Rubricon,
  RubriconError,
  type ServerSentEvent,
  type StreamRequestOptions,
} from "../src";
import { Transport } from "../src/core/transport";
import type { OperationSpec } from "../src/generated/operations";
import { buildResources } from "../src/resources";
import { errorBody, type LocalServer, sendJson, startLocalServer } from "./helpers/local-server";

async function* chunksOf(...parts: string[]): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  for (const part of parts) yield encoder.encode(part);
}

async function collect(source: AsyncIterable<ServerSentEvent>): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  for await (const event of source) events.push(event);
  return events;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("parseServerSentEvents", () => {
  it("reads event, data, id and retry fields", async () => {
    const events = await collect(
      parseServerSentEvents(chunksOf('event: progress\ndata: {"done":1}\nid: 7\nretry: 2500\n\n')),
    );
    expect(events).toEqual([{ event: "progress", data: '{"done":1}', id: "7", retry: 2500 }]);
  });

  it("joins multi-line data, defaults the type to message and ignores comments", async () => {
    const events = await collect(
      parseServerSentEvents(chunksOf(": keep-alive\n\ndata: a\ndata:b\ndata\n\n")),
    );
    expect(events).toEqual([{ event: "message", data: "a\nb\n", id: undefined, retry: undefined }]);
  });

  it("accepts CRLF and CR line ends, also when CRLF is split across chunks", async () => {
    const events = await collect(
      parseServerSentEvents(chunksOf("data: one\r", "\n\r", "\ndata: two\r\rdata: three\n", "\n")),
    );
    expect(events.map((e) => e.data)).toEqual(["one", "two", "three"]);
  });

  it("handles fields and multi-byte characters split across chunks", async () => {
    const bytes = new TextEncoder().encode("event: upd\u00e4te\ndata: caf\u00e9 \u2615\n\n");
    async function* split() {
      for (let i = 0; i < bytes.length; i += 3) yield bytes.slice(i, i + 3);
    }
    const events = await collect(parseServerSentEvents(split()));
    expect(events).toEqual([{ event: "updäte", data: "café ☕", id: undefined, retry: undefined }]);
  });

  it("keeps the last id for later events, drops events without data and a trailing unterminated event", async () => {
    const events = await collect(
      parseServerSentEvents(
        chunksOf("\uFEFFid: 1\ndata: a\n\n", "event: empty\n\n", "data: b\n\n", "id: 2\ndata: never ends"),
      ),
    );
    expect(events).toEqual([
      { event: "message", data: "a", id: "1", retry: undefined },
      { event: "message", data: "b", id: "1", retry: undefined },
    ]);
  });

  it("reads a web ReadableStream", async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("data: x\n\n"));
        controller.close();
      },
    });
    expect((await collect(parseServerSentEvents(stream))).map((e) => e.data)).toEqual(["x"]);
  });
});

describe("rubricon.stream()", () => {
  let server: LocalServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("streams events from a text/event-stream response as they are sent", async () => {
    server = await startLocalServer(async (_req, res) => {
      res.writeHead(200, { "Content-Type": "text/event-stream", "X-Request-Id": "req-1" });
      res.write(": connected\n\n");
      for (let i = 1; i <= 3; i++) {
        await sleep(30);
        res.write(`id: ${i}\nevent: progress\ndata: {"step":${i}}\n\n`);
      }
      res.end();
    });
    const rubricon = new Rubricon({ apiKey: "ak_live_test", baseUrl: `${server.url}/api/v1` });
    const stream = await rubricon.stream("/evaluations/eval_1/autouser-stream");
    expect(stream.requestId).toBe("req-1");
    const steps: number[] = [];
    for await (const event of stream) {
      expect(event.event).toBe("progress");
      steps.push((JSON.parse(event.data) as { step: number }).step);
    }
    expect(steps).toEqual([1, 2, 3]);
    expect(stream.lastEventId).toBe("3");
    const [request] = server.requests;
    expect(request).toMatchObject({ method: "GET", url: "/api/v1/evaluations/eval_1/autouser-stream" });
    expect(request!.headers.accept).toBe("text/event-stream");
    expect(request!.headers.authorization).toBe("Bearer ak_live_test");
  });

  it("closes the connection when the loop ends early, and resumes with Last-Event-ID", async () => {
    let disconnected = false;
    server = await startLocalServer((req, res) => {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      let n = Number(req.headers["last-event-id"] ?? 0);
      const timer = setInterval(() => {
        n += 1;
        res.write(`id: ${n}\ndata: ${n}\n\n`);
      }, 10);
      res.on("close", () => {
        disconnected = true;
        clearInterval(timer);
      });
    });
    const rubricon = new Rubricon({ apiKey: "k", baseUrl: server.url });
    const stream = await rubricon.stream("/live");
    for await (const event of stream) if (event.data === "2") break;
    expect(stream.lastEventId).toBe("2");
    await expect.poll(() => disconnected).toBe(true);

    const resumed = await rubricon.stream("/live", { lastEventId: stream.lastEventId });
    const next = await resumed[Symbol.asyncIterator]().next();
    expect(next.value?.data).toBe("3");
    resumed.close();
    expect(server.requests[1]!.headers["last-event-id"]).toBe("2");
  });

  it("rejects with the typed error when the server answers an error envelope instead of a stream", async () => {
    server = await startLocalServer((_req, res) =>
      sendJson(res, 401, errorBody("authentication_error", "invalid_api_key"), { "X-Request-Id": "req-401" }),
    );
    const rubricon = new Rubricon({ apiKey: "bad", baseUrl: server.url });
    const error = await rubricon.stream("/evaluations/x/autouser-stream").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: "invalid_api_key" });
  });

  it("refuses a 2xx response that is not an event stream", async () => {
    server = await startLocalServer((_req, res) => sendJson(res, 200, { ok: true }));
    const rubricon = new Rubricon({ apiKey: "k", baseUrl: server.url });
    const error = await rubricon.stream("/not-a-stream").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RubriconError);
    expect((error as RubriconError).message).toMatch(/Expected an event stream/);
  });

  it("sends a JSON body for streaming POST routes", async () => {
    server = await startLocalServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8" });
      res.end("data: reply\n\n");
    });
    const rubricon = new Rubricon({ apiKey: "k", baseUrl: server.url });
    const body = { role: "user", parts: [{ type: "text", text: "Hi" }], attachedDesignUrls: [] };
    const stream = await rubricon.stream("/conversations/c1/messages", { method: "POST", body });
    expect((await collect(stream)).map((e) => e.data)).toEqual(["reply"]);
    const [request] = server.requests;
    expect(request!.method).toBe("POST");
    expect(JSON.parse(request!.body)).toEqual(body);
    expect(request!.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("backs generated methods of routes that answer text/event-stream", async () => {
    server = await startLocalServer((req, res) => {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.end(`id: 5\ndata: after ${req.headers["last-event-id"]}\n\n`);
    });
    // The stream routes are not in the document yet; a table row of the shape the generator makes for them.
    const table: OperationSpec[] = [
      {
        method: "GET",
        path: "/evaluations/{id}/autouser-stream",
        operationId: "evaluations-autouserStream",
        tags: ["Evaluations"],
        pathParams: ["id"],
        hasBody: false,
        hasQuery: false,
        kind: "stream",
        deprecated: false,
        resource: ["evaluations"],
        name: "autouserStream",
      },
    ];
    const transport = new Transport({
      baseUrl: server.url,
      token: "k",
      serviceVersion: undefined,
      timeout: 5_000,
      maxRetries: 0,
      fetch: undefined,
      defaultHeaders: {},
    });
    const { evaluations } = buildResources(transport, table) as unknown as {
      evaluations: { autouserStream(id: string, options?: StreamRequestOptions): Promise<EventStream> };
    };
    const stream = await evaluations.autouserStream("eval_1", { lastEventId: "4" });
    expect((await collect(stream)).map((e) => e.data)).toEqual(["after 4"]);
    expect(server.requests[0]!.url).toBe("/evaluations/eval_1/autouser-stream");
  });
});
