import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "@rubricon/core";
import type { ApiRequest, HeaderReader } from "../request/api-request";

/** A size as people read it: `67 bytes`, `16 KB`, `1.5 MB`. */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? "byte" : "bytes"}`;
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, "KB"] : [bytes / (1024 * 1024), "MB"];
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
}

export function requestTooLarge(limit: number): ApiError {
  const size = byteSize(limit);
  return new ApiError("request_too_large", `The request body is larger than this route accepts (${size}).`, {
    // The rest of an oversized body is not read: the connection is closed after the answer.
    headers: { Connection: "close" },
  });
}

function assertDeclaredLength(headers: HeaderReader, limit: number): void {
  const declared = headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw requestTooLarge(limit);
}

/**
 * `edge`: this server faces clients, so the socket's peer is the client and a client-sent X-Forwarded-For is
 * dropped. `proxied`: requests come through `TRUSTED_PROXY_COUNT` (at least one) proxies, the nearest being the
 * peer, so the chain they wrote is read as they wrote it (see `clientIp`); a request without one is its peer's.
 */
export type ForwardedFor = "edge" | "proxied";

/** Clients reach this server directly, or through `trustedProxyCount` proxies whose chain is believed that far. */
export const forwardedForOf = (trustedProxyCount: number): ForwardedFor =>
  trustedProxyCount > 0 ? "proxied" : "edge";

class NodeHeaders implements HeaderReader {
  constructor(
    private readonly req: IncomingMessage,
    private readonly forwardedFor: string | null,
  ) {}

  get(name: string): string | null {
    const key = name.toLowerCase();
    if (key === "x-forwarded-for") return this.forwardedFor;
    const value = this.req.headers[key];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  }

  *entries(): Iterable<[string, string]> {
    for (const name of Object.keys(this.req.headers)) {
      const value = this.get(name);
      if (value !== null) yield [name, value];
    }
    if (this.forwardedFor !== null && this.req.headers["x-forwarded-for"] === undefined)
      yield ["x-forwarded-for", this.forwardedFor];
  }
}

/** Reads a node request's body without ever keeping more than `limit` bytes of it. */
function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err?: unknown) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", done);
      req.off("close", onClose);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        done(requestTooLarge(limit));
      } else chunks.push(chunk);
    };
    const onEnd = () => done();
    const onClose = () => {
      if (!req.complete) done(new Error("the client closed the connection before sending the whole body"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", done);
    req.on("close", onClose);
  });
}

/**
 * A node request's body chunk by chunk: the request is paused between reads (backpressure) and when the reader
 * stops, never destroyed, so a 413 can still be written to its socket.
 */
function nodeBodyChunks(req: IncomingMessage, limit: number): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      const queue: Buffer[] = [];
      let ended = false;
      let failure: unknown = null;
      let size = 0;
      let wake: (() => void) | null = null;
      const notify = () => {
        const w = wake;
        wake = null;
        w?.();
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        req.pause();
        if (size > limit) {
          failure = requestTooLarge(limit);
          detach();
        } else queue.push(chunk);
        notify();
      };
      const onEnd = () => {
        ended = true;
        notify();
      };
      const onError = (err: unknown) => {
        failure = err;
        notify();
      };
      const onClose = () => {
        if (!req.complete && !failure) failure = new Error("the client closed the connection mid-upload");
        notify();
      };
      const detach = () => {
        req.off("data", onData);
        req.off("end", onEnd);
        req.off("error", onError);
        req.off("close", onClose);
      };
      req.on("data", onData);
      req.on("end", onEnd);
      req.on("error", onError);
      req.on("close", onClose);
      req.pause();
      return {
        async next(): Promise<IteratorResult<Uint8Array>> {
          for (;;) {
            const chunk = queue.shift();
            if (chunk) return { value: chunk, done: false };
            if (failure) throw failure;
            if (ended) {
              detach();
              return { value: undefined, done: true };
            }
            const woken = new Promise<void>((resolve) => {
              wake = resolve;
            });
            req.resume();
            await woken;
          }
        },
        async return(): Promise<IteratorResult<Uint8Array>> {
          detach();
          req.pause();
          return { value: undefined, done: true };
        },
      };
    },
  };
}

/** The most of an unread body that is read and thrown away so its client can read the answer (see below). */
export const DISCARD_LIMIT_BYTES = 16 * 1024 * 1024;
const DISCARD_LIMIT_MS = 10_000;

/**
 * Reads and throws away what is left of a request's body, so that an answer given before the body was read (a 413,
 * a 401, a 404) reaches the client. A server that closes a socket with unread bytes in it resets the connection,
 * and a client still sending (Node's fetch, the SDK) then fails with EPIPE instead of reading the answer (RFC 9112
 * §9.6). Bounded: past `DISCARD_LIMIT_BYTES` (declared or counted) or `DISCARD_LIMIT_MS` it resolves false, and
 * the answer is sent with the connection closed in stages (`writeNodeReplyThenClose`).
 */
export function discardNodeBody(req: IncomingMessage): Promise<boolean> {
  if (req.complete || req.readableEnded) return Promise.resolve(true);
  if (req.destroyed) return Promise.resolve(false);
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > DISCARD_LIMIT_BYTES) return Promise.resolve(false);
  return new Promise((resolve) => {
    let size = 0;
    const finish = (whole: boolean) => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onFail);
      req.off("close", onFail);
      if (!whole) req.pause();
      resolve(whole);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > DISCARD_LIMIT_BYTES) finish(false);
    };
    const onEnd = () => finish(true);
    const onFail = () => finish(false);
    const timer = setTimeout(onFail, DISCARD_LIMIT_MS);
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onFail);
    req.on("close", onFail);
    req.resume();
  });
}

/**
 * A node request as an `ApiRequest`, without the Web `Request` and its streams: on a hot route, building those
 * and the `Response` cost about a tenth of the request's CPU.
 */
export function fromNodeRequest(
  req: IncomingMessage,
  res: ServerResponse,
  forwardedFor: ForwardedFor,
): ApiRequest {
  const peer = req.socket.remoteAddress ?? null;
  const sent = req.headers["x-forwarded-for"];
  const chain = forwardedFor === "proxied" && sent ? (Array.isArray(sent) ? sent.join(", ") : sent) : null;
  // The peer is not appended to a proxied chain: it is the nearest proxy, whose own address says nothing of the
  // client, and `clientIp` counts the trusted proxies from the chain's right end.
  const headers = new NodeHeaders(req, chain ?? peer);
  let controller: AbortController | undefined;
  return {
    method: req.method ?? "GET",
    // As Next.js does, the request's own origin is where it was addressed (its Host header).
    url: `http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`,
    headers,
    // Made on first use: most requests never ask, and a listener per request is not free.
    get signal() {
      if (!controller) {
        const made = new AbortController();
        controller = made;
        res.once("close", () => {
          if (!res.writableFinished) made.abort();
        });
      }
      return controller.signal;
    },
    readBody(limit) {
      assertDeclaredLength(headers, limit);
      return readNodeBody(req, limit);
    },
    bodyChunks(limit) {
      assertDeclaredLength(headers, limit);
      return nodeBodyChunks(req, limit);
    },
    node: { req, res },
  };
}

class WebHeaders implements HeaderReader {
  constructor(private readonly headers: Headers) {}
  get(name: string): string | null {
    return this.headers.get(name);
  }
  entries(): Iterable<[string, string]> {
    return this.headers.entries();
  }
}

/** A Web `Request` (a Next.js route handler's) as an `ApiRequest`. */
export function fromWebRequest(req: Request): ApiRequest {
  const headers = new WebHeaders(req.headers);
  return {
    method: req.method,
    url: req.url,
    headers,
    signal: req.signal,
    async readBody(limit) {
      assertDeclaredLength(headers, limit);
      if (!req.body) return new Uint8Array(0);
      const reader = req.body.getReader();
      const chunks: Uint8Array[] = [];
      let size = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limit) {
          await reader.cancel();
          throw requestTooLarge(limit);
        }
        chunks.push(value);
      }
      return Buffer.concat(chunks, size);
    },
    async *bodyChunks(limit) {
      assertDeclaredLength(headers, limit);
      if (!req.body) return;
      const reader = req.body.getReader();
      let size = 0;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          size += value.byteLength;
          if (size > limit) throw requestTooLarge(limit);
          yield value;
        }
      } finally {
        await reader.cancel().catch(() => {});
      }
    },
  };
}
