import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface LocalServer {
  url: string;
  /** Every request received, in order, with its headers and body. */
  requests: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[];
  close(): Promise<void>;
}

/** A throwaway `node:http` server on a loopback port, for behaviour the real API cannot be made to show. */
export async function startLocalServer(
  handler: (req: IncomingMessage, res: ServerResponse, index: number) => void | Promise<void>,
): Promise<LocalServer> {
  const requests: LocalServer["requests"] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const index = requests.length;
    requests.push({
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    });
    try {
      await handler(req, res, index);
    } catch (err) {
      res.destroy(err as Error);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export function errorBody(type: string, code: string, message = code) {
  return { error: { type, code, message, request_id: "019a0000-0000-7000-8000-000000000000" } };
}
