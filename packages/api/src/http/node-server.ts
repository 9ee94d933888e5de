import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

type FetchHandler = (req: Request) => Promise<Response>;

/**
 * `edge`: this server faces clients, so the socket's peer is the client and a client-sent X-Forwarded-For is
 * dropped. `proxied`: the peer is appended to the chain as a proxy would, and `TRUSTED_PROXY_COUNT` decides
 * how much of it to believe (see `clientIp`).
 */
type ForwardedFor = "edge" | "proxied";

async function toRequest(
  req: IncomingMessage,
  origin: string,
  forwardedFor: ForwardedFor = "edge",
): Promise<Request> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const peer = req.socket.remoteAddress;
  const chain = forwardedFor === "proxied" ? headers.get("x-forwarded-for") : null;
  if (peer) headers.set("x-forwarded-for", chain ? `${chain}, ${peer}` : peer);
  else if (!chain) headers.delete("x-forwarded-for");
  const chunks: Buffer[] = [];
  if (req.method !== "GET" && req.method !== "HEAD")
    for await (const chunk of req) chunks.push(chunk as Buffer);
  return new Request(new URL(req.url ?? "/", origin), {
    method: req.method,
    headers,
    body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
  });
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  const setCookies = response.headers.getSetCookie();
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") res.setHeader(name, value);
  });
  if (setCookies.length > 0) res.setHeader("set-cookie", setCookies);
  res.statusCode = response.status;
  res.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
}

/** A node:http request listener serving a fetch-style handler (the production server's `/api/v1`). */
export function nodeListener(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    // As Next.js does, the request's own origin is where it was addressed (its Host header).
    const origin = `http://${req.headers.host ?? "localhost"}`;
    toRequest(req, origin, "proxied")
      .then(handler)
      .then((response) => send(res, response))
      .catch((err) => {
        console.error(err);
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      });
  };
}

/** Hosts a fetch-style handler on node:http (tests, the benchmark and the admin tools). */
export async function listen(
  handler: FetchHandler,
  port = 0,
  host = "127.0.0.1",
): Promise<{ server: Server; url: string }> {
  let origin = `http://${host}`;
  const server = createServer((req, res) => {
    toRequest(req, origin)
      .then(handler)
      .then((response) => send(res, response))
      .catch((err) => {
        console.error(err);
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      });
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  return { server, url: origin };
}
