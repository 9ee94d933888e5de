import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { ReceivedRequest, ScriptedFailure, ScriptedReply, ScriptedSuccess } from "./script";

/** What a request is, as one provider's protocol reads it; null for paths the provider does not serve. */
export interface ParsedRequest {
  model: string | null;
  stream: boolean;
  apiKey: string | null;
  images: number;
}

export interface ErrorReply {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

export interface ReplyContext {
  body: Record<string, unknown>;
  model: string;
  /** Path without query, e.g. `/v1/chat/completions`. */
  path: string;
}

/** One provider's wire protocol: how it routes, carries keys, answers and fails. */
export interface ProviderProtocol {
  /** The path prefix the SDK's base URL ends with (`/v1`, `/v1beta`). */
  basePath: string;
  parse(
    method: string,
    path: string,
    query: URLSearchParams,
    headers: IncomingMessage["headers"],
    body: unknown,
  ): ParsedRequest | null;
  failure(reply: ScriptedFailure, request: ParsedRequest): ErrorReply;
  /** The JSON body of a non-streamed reply. */
  json(reply: ScriptedSuccess, context: ReplyContext): unknown;
  /** The SSE events of a streamed reply, in order; `data` is serialised as JSON unless a string. */
  events(reply: ScriptedSuccess, context: ReplyContext): { event?: string; data: unknown }[];
  /** The body for a path the provider does not serve. */
  notFound(path: string): ErrorReply;
}

export interface ProviderServerOptions {
  /** When set, a request carrying another key gets the provider's bad-key answer. */
  apiKey?: string;
  /** The reply when the script is empty; without one an empty script answers with the provider's 500. */
  fallback?: ScriptedReply;
  /** Pause between streamed events, so a client can watch a reply arrive piece by piece. */
  chunkDelayMs?: number;
}

export interface ProviderServer {
  /** The base URL to give the AI SDK provider (`baseURL`) or a BYOK setting's `baseUrl`. */
  readonly baseUrl: string;
  /** Every model request received, oldest first. */
  readonly requests: ReceivedRequest[];
  /** Queues replies for the next requests, in order. */
  enqueue(...replies: ScriptedReply[]): void;
  setFallback(reply: ScriptedReply | null): void;
  /** Replies queued and not yet used. */
  pending(): number;
  close(): Promise<void>;
}

const MAX_BODY = 32 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error("body too large"));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text).toString(),
    ...headers,
  });
  res.end(text);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts an HTTP server on 127.0.0.1 speaking `protocol`, answering from a script of replies. */
export async function startLoopbackServer(
  protocol: ProviderProtocol,
  options: ProviderServerOptions = {},
): Promise<ProviderServer> {
  const queue: ScriptedReply[] = [];
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  let fallback: ScriptedReply | null = options.fallback ?? null;
  const delay = options.chunkDelayMs ?? 0;

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://loopback");
    let raw: string;
    try {
      raw = await readBody(req);
    } catch {
      res.destroy();
      return;
    }
    let body: unknown = raw;
    try {
      body = raw.length > 0 ? JSON.parse(raw) : null;
    } catch {
      // A request that is not JSON is recorded as text; the provider would refuse it, and so does the parse below.
    }
    const parsed = protocol.parse(req.method ?? "GET", url.pathname, url.searchParams, req.headers, body);
    if (!parsed) {
      const notFound = protocol.notFound(url.pathname);
      sendJson(res, notFound.status, notFound.body, notFound.headers);
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string") headers[name] = value;
      else if (Array.isArray(value)) headers[name] = value.join(", ");
    }
    requests.push({
      method: req.method ?? "GET",
      url: `${url.pathname}${url.search}`,
      headers,
      body,
      model: parsed.model,
      stream: parsed.stream,
      apiKey: parsed.apiKey,
      images: parsed.images,
    });

    let reply: ScriptedReply = queue.shift() ?? fallback ?? { type: "server-error" };
    if (options.apiKey !== undefined && parsed.apiKey !== options.apiKey) reply = { type: "bad-key" };

    switch (reply.type) {
      case "bad-key":
      case "rate-limited":
      case "server-error": {
        const failure = protocol.failure(reply, parsed);
        sendJson(res, failure.status, failure.body, failure.headers);
        return;
      }
      case "hang":
        // Headers are not even sent: the client sees a request that never answers.
        return;
      case "malformed":
        if (parsed.stream) {
          res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
          res.end('data: {"id": "broken", "choices": [\n\n');
        } else {
          res.writeHead(200, { "content-type": "application/json" });
          res.end('{"id": "broken", "output": [');
        }
        return;
    }

    const context: ReplyContext = {
      body: body !== null && typeof body === "object" ? (body as Record<string, unknown>) : {},
      model: parsed.model ?? "unknown-model",
      path: url.pathname,
    };
    if (!parsed.stream) {
      sendJson(res, 200, protocol.json(reply, context));
      return;
    }
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    for (const event of protocol.events(reply, context)) {
      if (res.destroyed) return;
      const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
      res.write(`${event.event ? `event: ${event.event}\n` : ""}data: ${data}\n\n`);
      if (delay > 0) await sleep(delay);
    }
    res.end();
  });

  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}${protocol.basePath}`,
    requests,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    setFallback: (reply) => {
      fallback = reply;
    },
    pending: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The value of a `Bearer` authorization header. */
export function bearerToken(headers: IncomingMessage["headers"]): string | null {
  const value = headers.authorization;
  if (typeof value !== "string") return null;
  const match = /^Bearer\s+(.+)$/i.exec(value);
  return match?.[1] ?? null;
}

export function header(headers: IncomingMessage["headers"], name: string): string | null {
  const value = headers[name];
  return typeof value === "string" ? value : null;
}
