import { createHash } from "node:crypto";
import type { ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { Exchange } from "../request/exchange";
import type { Reply, ServerSentEvent } from "../request/reply";

export const SSE_HEADERS = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-store",
  Connection: "keep-alive",
  // Proxies that buffer responses (nginx) would hold events back.
  "X-Accel-Buffering": "no",
} as const;

const HEARTBEAT = ": heartbeat\n\n";

export function formatEvent(e: ServerSentEvent): string {
  let frame = "";
  if (e.id !== undefined) frame += `id: ${e.id.replace(/[\r\n]/g, "")}\n`;
  if (e.event !== undefined) frame += `event: ${e.event.replace(/[\r\n]/g, "")}\n`;
  return `${frame}data: ${JSON.stringify(e.data ?? null)}\n\n`;
}

/** Open event streams, so a stopping server can end them with a reconnect hint instead of cutting them. */
const openStreams = new Set<(retryMs: number) => void>();

/**
 * Ends every open event stream with an SSE `retry` field: the client's EventSource reconnects after `retryMs`,
 * by then to another instance (or this one restarted), and resumes from its `Last-Event-ID`.
 */
export function endOpenStreams(retryMs: number): number {
  const ending = [...openStreams];
  for (const end of ending) end(retryMs);
  return ending.length;
}

/**
 * How long a connection stays open after an answer sent over a body left unread. Closing a socket with the client's
 * bytes still arriving resets it, and the reset can reach the client before the answer does (RFC 9112 §9.6).
 */
export const LINGER_MS = 2_000;

/**
 * Writes a whole reply and closes the connection, in stages: the answer goes out at once with its length and
 * `Connection: close`, and the response ends (which closes the socket) only `LINGER_MS` later, so the client has
 * read it before the close resets the connection under the body it is still sending.
 */
export function writeNodeReplyThenClose(res: ServerResponse, reply: Reply, lingerMs = LINGER_MS): void {
  if (reply.written) return;
  if (reply.stream || reply.body instanceof Readable) {
    writeNodeReply(res, { ...reply, headers: { ...reply.headers, Connection: "close" } } as Reply);
    return;
  }
  const body = reply.body ?? "";
  res.writeHead(reply.status, {
    ...reply.headers,
    Connection: "close",
    "Content-Length": String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength),
  });
  res.write(body);
  setTimeout(() => res.end(), lingerMs).unref();
}

/** Writes a reply to a node response; an event stream is written as it is produced, with heartbeats. */
export function writeNodeReply(res: ServerResponse, reply: Reply): void {
  if (reply.written) return;
  if (!reply.stream) {
    res.writeHead(reply.status, reply.headers);
    if (reply.body instanceof Readable) {
      const body = reply.body;
      body.on("error", () => res.destroy());
      res.once("close", () => body.destroy());
      body.pipe(res);
      return;
    }
    res.end(reply.body ?? undefined);
    return;
  }
  const { stream } = reply;
  res.writeHead(200, reply.headers);
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  let open = true;
  const heartbeat = setInterval(() => res.write(HEARTBEAT), stream.heartbeatMs);
  heartbeat.unref?.();
  const close = () => {
    if (!open) return;
    open = false;
    openStreams.delete(endWithRetry);
    clearInterval(heartbeat);
    stream.abort();
    void stream.rest.return?.();
  };
  const endWithRetry = (retryMs: number) => {
    if (!open) return;
    res.write(`retry: ${retryMs}\n\n`);
    close();
    res.end();
  };
  openStreams.add(endWithRetry);
  res.once("close", close);
  const pump = async () => {
    if (stream.first) res.write(formatEvent(stream.first));
    else return;
    while (open) {
      const next = await stream.rest.next();
      if (next.done || !open) return;
      if (!res.write(formatEvent(next.value))) {
        await new Promise<void>((resolve) => {
          res.once("drain", resolve);
          res.once("close", resolve);
        });
      }
    }
  };
  pump()
    .catch((err: unknown) => {
      if (open) res.write(stream.errorFrame(err));
    })
    .finally(() => {
      close();
      res.end();
    });
}

/** A reply as a Web `Response` (Next.js route handlers); an event stream becomes a pulled `ReadableStream`. */
export function toWebResponse(reply: Reply): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(reply.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  if (!reply.stream) {
    // Node's Uint8Array is typed over ArrayBufferLike; the Web types want an ArrayBuffer-backed view.
    const body =
      reply.body instanceof Readable
        ? (Readable.toWeb(reply.body) as ReadableStream<Uint8Array>)
        : (reply.body as string | Uint8Array<ArrayBuffer> | null);
    return new Response(body, { status: reply.status, headers });
  }
  const { stream } = reply;
  const encoder = new TextEncoder();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let firstSent = false;
  let stopped = false;
  const stop = () => {
    stopped = true;
    clearInterval(heartbeat);
    stream.abort();
    void stream.rest.return?.();
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      heartbeat = setInterval(() => controller.enqueue(encoder.encode(HEARTBEAT)), stream.heartbeatMs);
    },
    async pull(controller) {
      try {
        if (!firstSent) {
          firstSent = true;
          if (stream.first) {
            controller.enqueue(encoder.encode(formatEvent(stream.first)));
            return;
          }
        } else {
          const next = await stream.rest.next();
          if (!next.done) {
            controller.enqueue(encoder.encode(formatEvent(next.value)));
            return;
          }
        }
      } catch (err) {
        // A producer stopped because the client left has nobody to tell.
        if (stopped) return;
        controller.enqueue(encoder.encode(stream.errorFrame(err)));
      }
      stop();
      controller.close();
    },
    cancel: stop,
  });
  return new Response(body, { status: 200, headers });
}

// Replies built on the exchange, so the headers the request gathered (its id, version, limits) go into each.

export function jsonReply(
  ex: Exchange,
  status: number,
  body: unknown,
  extra?: Record<string, string>,
  /** The body's JSON, as text or UTF-8 bytes, when it is already known (`serializedOnce`). */
  text?: string | Uint8Array,
): Reply {
  const headers: Record<string, string | string[]> = { ...ex.headers, ...extra };
  if (ex.cookies.length > 0) headers["Set-Cookie"] = ex.cookies;
  if (status === 204) return { status, headers, body: null };
  headers["Content-Type"] = "application/json; charset=utf-8";
  return { status, headers, body: text ?? JSON.stringify(body) };
}

/** A body's JSON as UTF-8 bytes, with the entity tag of those bytes. */
export interface SerializedBody {
  bytes: Buffer;
  /** A strong `ETag`: the first 128 bits of the bytes' SHA-256, base64url, quoted. */
  etag: string;
}

/** JSON bodies answered again unchanged, as UTF-8 bytes, by the body object: dropped with it. */
const serializedBodies = new WeakMap<object, SerializedBody>();

/**
 * The JSON of a body a route answers again as the same object (`RouteMeta.reusedBody`), serialized, encoded and
 * tagged on its first answer only: a string body is encoded to UTF-8 again on every write, which for results of
 * thousands of comparisons (megabytes) was a fifth of a cached read. Such a body must never be changed after it
 * was first answered.
 */
export function serializedOnce(body: object): SerializedBody {
  let serialized = serializedBodies.get(body);
  if (serialized === undefined) {
    const bytes = Buffer.from(JSON.stringify(body), "utf8");
    const digest = createHash("sha256").update(bytes).digest("base64url").slice(0, 22);
    serialized = { bytes, etag: `"${digest}"` };
    serializedBodies.set(body, serialized);
  }
  return serialized;
}

/**
 * Whether an `If-None-Match` header names `etag` (RFC 9110 §13.1.2: `*`, or a list compared weakly, so `W/"x"`
 * matches `"x"`).
 */
export function noneMatchHits(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  for (const part of header.split(",")) {
    const tag = part.trim();
    if ((tag.startsWith("W/") ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

/**
 * `304 Not Modified` for a conditional GET whose tag still matches: the validators again, no body. Kept in a
 * client's cache (`private`) and revalidated on every use (`no-cache`).
 */
export function notModifiedReply(ex: Exchange, etag: string): Reply {
  const headers: Record<string, string | string[]> = { ...ex.headers, ...revalidated(etag) };
  if (ex.cookies.length > 0) headers["Set-Cookie"] = ex.cookies;
  return { status: 304, headers, body: null };
}

/** The headers that let a client keep a tagged body and ask again with `If-None-Match`. */
export function revalidated(etag: string): Record<string, string> {
  return { ETag: etag, "Cache-Control": "private, no-cache" };
}

/** 302 to `location`; a redirect to a signed, short-lived URL must never be cached. */
export function redirectReply(ex: Exchange, location: string): Reply {
  return {
    status: 302,
    headers: { ...ex.headers, Location: location, "Cache-Control": "no-store" },
    body: null,
  };
}

/**
 * An event stream from a producer. The first event is pulled before answering, so an error the producer meets
 * first (no such evaluation, no access) is still a JSON envelope with its real status.
 */
export async function streamReply(
  ex: Exchange,
  events: AsyncIterable<ServerSentEvent>,
  abort: () => void,
): Promise<Reply> {
  const rest = events[Symbol.asyncIterator]();
  const first = await rest.next();
  return {
    status: 200,
    headers: { ...ex.headers, ...SSE_HEADERS },
    stream: {
      first: first.done ? null : first.value,
      rest,
      heartbeatMs: ex.ctx.services.env.sseHeartbeatMs,
      abort,
      errorFrame: (err) => formatEvent({ event: "error", data: ex.failure(err).body }),
    },
  };
}
