import type { IncomingMessage, ServerResponse } from "node:http";

/** What the REST pipeline reads of a request: a Web `Request` is one, and so is a node request adapted below. */
export interface ApiRequest {
  readonly method: string;
  /** Absolute URL. */
  readonly url: string;
  readonly headers: HeaderReader;
  text(): Promise<string>;
}

export interface HeaderReader {
  get(name: string): string | null;
}

/** What the REST pipeline answers: written to a node response as is, or wrapped in a Web `Response`. */
export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  /** Null for 204. */
  body: string | null;
}

export function toWebResponse(r: ApiResponse): Response {
  return new Response(r.body, { status: r.status, headers: r.headers });
}

/**
 * `edge`: this server faces clients, so the socket's peer is the client and a client-sent X-Forwarded-For is
 * dropped. `proxied`: the peer is appended to the chain as a proxy would, and `TRUSTED_PROXY_COUNT` decides
 * how much of it to believe (see `clientIp`).
 */
export type ForwardedFor = "edge" | "proxied";

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
}

/** Bodies past this many bytes are drained but not kept; the pipeline refuses them by their length. */
const BODY_KEEP_LIMIT = 1024 * 1024 + 1;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of req) {
    if (kept >= BODY_KEEP_LIMIT) continue;
    chunks.push(chunk as Buffer);
    kept += (chunk as Buffer).length;
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * A node request as an `ApiRequest`, without the Web `Request` and its streams: on a hot route, building those
 * and the `Response` cost about a tenth of the request's CPU.
 */
export function fromNodeRequest(req: IncomingMessage, forwardedFor: ForwardedFor): ApiRequest {
  const peer = req.socket.remoteAddress ?? null;
  const sent = req.headers["x-forwarded-for"];
  const chain = forwardedFor === "proxied" && sent ? (Array.isArray(sent) ? sent.join(", ") : sent) : null;
  // As Next.js does, the request's own origin is where it was addressed (its Host header).
  const url = `http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`;
  return {
    method: req.method ?? "GET",
    url,
    headers: new NodeHeaders(req, peer ? (chain ? `${chain}, ${peer}` : peer) : chain),
    text: () => readBody(req),
  };
}

export function writeNodeResponse(res: ServerResponse, r: ApiResponse): void {
  res.writeHead(r.status, r.headers);
  res.end(r.body ?? undefined);
}
