import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Team, WebhookEndpointWithSecret } from "@rubricon/contracts";
import { type Clock, DeliveryWorker, type DeliveryWorkerOptions, systemClock } from "@rubricon/core";
import { bodyOf, call, sessionHeaders, type TestUser } from "./clients";
import { startTestServer, TEST_SECRETS, type TestServer, type TestServerOptions } from "./server";

/** The feature on, and loopback receivers allowed, as local development runs it. */
export const WEBHOOKS_ON = { WEBHOOKS_ENABLED: "true", WEBHOOKS_ALLOW_PRIVATE_URLS: "true" };

export function startWebhookServer(opts: TestServerOptions = {}): Promise<TestServer> {
  return startTestServer({ ...opts, env: { ...WEBHOOKS_ON, ...opts.env } });
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as received. */
  body: string;
}

/** What the receiver does with one request: answer (status, body), reset the connection, or never answer. */
export type Reply = { status: number; body?: string; headers?: Record<string, string> } | "reset" | "hang";

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Decides each answer; default 200. */
  reply: (req: ReceivedRequest) => Reply;
  close(): Promise<void>;
}

/** A webhook receiver on a loopback port that records every request. */
export async function startReceiver(reply: Receiver["reply"] = () => ({ status: 200 })): Promise<Receiver> {
  const hanging = new Set<ServerResponse>();
  const receiver: Receiver = {
    url: "",
    requests: [],
    reply,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const recorded = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      receiver.requests.push(recorded);
      const answer = receiver.reply(recorded);
      if (answer === "reset") return void req.socket.destroy();
      if (answer === "hang") return void hanging.add(res);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

/** A delivery worker on the test server's database, with a short time-out unless told otherwise. */
export function deliveryWorker(
  server: TestServer,
  opts: Partial<DeliveryWorkerOptions> & { clock?: Clock } = {},
): DeliveryWorker {
  return new DeliveryWorker({
    db: server.database.db,
    clock: opts.clock ?? systemClock,
    encryptionKey: TEST_SECRETS.ENCRYPTION_KEY,
    allowPrivateUrls: true,
    timeoutMs: 2000,
    ...opts,
  });
}

/** Creates an endpoint through the API and answers it with its secret. */
export async function createEndpoint(
  server: TestServer,
  headers: Record<string, string>,
  body: Record<string, unknown>,
): Promise<WebhookEndpointWithSecret> {
  const res = await call(WebhookEndpointWithSecret, `${server.api}/webhooks`, {
    method: "POST",
    headers,
    body,
  });
  if (res.status !== 201)
    throw new Error(`create endpoint failed: ${res.status} ${JSON.stringify(res.body)}`);
  return bodyOf(res);
}

/** A second team of `user`'s on `plan`, created through the API. */
export async function createTeam(server: TestServer, user: TestUser, name: string): Promise<string> {
  const res = await call(Team, `${server.api}/teams`, {
    method: "POST",
    headers: sessionHeaders(server, user),
    body: { name },
  });
  if (res.status !== 201) throw new Error(`create team failed: ${res.status} ${JSON.stringify(res.body)}`);
  return bodyOf(res).id;
}

/** Polls `check` until it answers something truthy, and answers that (so never undefined or null). */
export async function until<T>(
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
  label = "condition",
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
