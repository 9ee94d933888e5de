import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ForwardedFor } from "./api-message";

/** A node request as a Web `Request` (sign-in and share links, whose handlers speak fetch). */
export async function toWebRequest(
  req: IncomingMessage,
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
  // As Next.js does, the request's own origin is where it was addressed (its Host header).
  return new Request(new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`), {
    method: req.method,
    headers,
    body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
  });
}

export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const setCookies = response.headers.getSetCookie();
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") res.setHeader(name, value);
  });
  if (setCookies.length > 0) res.setHeader("set-cookie", setCookies);
  res.statusCode = response.status;
  res.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
}

type FetchHandler = (req: Request) => Promise<Response>;
type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Hosts a handler on node:http over loopback (tests, the benchmark and the admin tools), facing clients directly. */
export async function listen(
  handler:
    | FetchHandler
    | { handleNode(req: IncomingMessage, res: ServerResponse, forwardedFor: ForwardedFor): void },
  port = 0,
  host = "127.0.0.1",
): Promise<{ server: Server; url: string }> {
  const serve: NodeHandler =
    typeof handler === "function"
      ? (req, res) => {
          toWebRequest(req)
            .then(handler)
            .then((response) => sendWebResponse(res, response))
            .catch((err) => {
              console.error(err);
              if (!res.headersSent) res.statusCode = 500;
              res.end();
            });
        }
      : (req, res) => handler.handleNode(req, res, "edge");
  const server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return { server, url: `http://${host}:${(server.address() as AddressInfo).port}` };
}
