import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ForwardedFor } from "./api-message";

interface NodeHandler {
  handleNode(req: IncomingMessage, res: ServerResponse, forwardedFor: ForwardedFor): void;
}

/** Hosts the pipeline on node:http over loopback (tests, the benchmark and the admin tools), facing clients directly. */
export async function listen(
  handler: NodeHandler,
  port = 0,
  host = "127.0.0.1",
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => handler.handleNode(req, res, "edge"));
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return { server, url: `http://${host}:${(server.address() as AddressInfo).port}` };
}
