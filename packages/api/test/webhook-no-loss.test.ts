/**
 * Proof that deliveries lose nothing: a receiver that fails at random (500s, connection resets, answers that
 * never come) and delivery workers killed mid-delivery and restarted. Every event must reach the receiver, with
 * a valid signature, at least once; repeats are the same delivery of the same event. On Postgres the workers
 * are separate processes killed with SIGKILL; on PGlite (one process only) they run in-process and are cut off
 * mid-send the way a crash would.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { events, webhookDeliveries } from "@rubricon/db";
import { verify } from "@rubricon/webhooks";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation } from "./helpers/assertions";
import { bearer, mintApiKey, signUp } from "./helpers/clients";
import type { TestServer } from "./helpers/server";
import { createEndpoint, deliveryWorker, startWebhookServer, until } from "./helpers/webhooks";

const HERE = dirname(fileURLToPath(import.meta.url));
const TIMEOUT_MS = 1000;
const LEASE_MS = 2500;
// Compressed, and longer than production's nine attempts, so a run of bad luck cannot abandon an event.
const RETRY_DELAYS_MS = [50, 100, 150, 200, 250, 300, 300, 300, 300, 300, 300, 300];

interface ChaosReceiver {
  url: string;
  /** Requests received and not yet answered (or cut off). */
  pending: number;
  /** Event ids answered 2xx after a valid signature, with how often. */
  accepted: Map<string, number>;
  /** Every signed body received per delivery id. */
  bodiesByDelivery: Map<string, Set<string>>;
  badSignatures: number;
  requests: number;
  close(): Promise<void>;
}

async function startChaosReceiver(secret: () => string): Promise<ChaosReceiver> {
  const state: ChaosReceiver = {
    url: "",
    pending: 0,
    accepted: new Map(),
    bodiesByDelivery: new Map(),
    badSignatures: 0,
    requests: 0,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    state.requests++;
    state.pending++;
    let open = true;
    res.on("close", () => {
      if (open) state.pending--;
      open = false;
    });
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const roll = Math.random();
      if (roll < 0.1) return void req.socket.destroy();
      if (roll < 0.15) return; // never answers: the worker's time-out cuts it off
      if (roll < 0.3) return void setTimeout(() => res.writeHead(500).end("busy"), Math.random() * 30);
      try {
        await verify(body, req.headers, secret());
      } catch {
        state.badSignatures++;
        return void res.writeHead(400).end("bad signature");
      }
      const eventId = String(JSON.parse(body).id);
      const deliveryId = String(req.headers["service-delivery-id"]);
      if (req.headers["service-event-id"] !== eventId) state.badSignatures++;
      state.bodiesByDelivery.set(deliveryId, (state.bodiesByDelivery.get(deliveryId) ?? new Set()).add(body));
      // Answer a little later, so a kill often lands while a delivery is in flight.
      setTimeout(
        () => {
          state.accepted.set(eventId, (state.accepted.get(eventId) ?? 0) + 1);
          res.writeHead(204).end();
        },
        5 + Math.random() * 60,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return state;
}

interface RunningWorker {
  /** Dies at once, mid-delivery if one is in flight, recording nothing more. */
  crash(): Promise<void>;
}

/** A worker process on the test's Postgres database, killed with SIGKILL. */
async function processWorker(databaseUrl: string): Promise<RunningWorker> {
  const config = { databaseUrl, timeoutMs: TIMEOUT_MS, leaseMs: LEASE_MS, retryDelaysMs: RETRY_DELAYS_MS };
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", join(HERE, "helpers/delivery-worker-main.ts"), JSON.stringify(config)],
    { cwd: join(HERE, ".."), stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const collect = (c: Buffer) => {
    output += c.toString();
    // The loop reports only trouble; show it, since the test cannot see into the process otherwise.
    if (/failed|not completed/.test(c.toString())) process.stderr.write(`worker: ${c}`);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  await until(() => output.includes("ready") || child.exitCode !== null, 120_000, "worker start");
  if (child.exitCode !== null) throw new Error(`worker exited: ${output}`);
  return {
    crash: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

/** The in-process stand-in on PGlite: aborting cuts its sends off and skips their bookkeeping, like a crash. */
function inProcessWorker(server: TestServer): RunningWorker {
  const crashed = new AbortController();
  const worker = deliveryWorker(server, {
    timeoutMs: TIMEOUT_MS,
    leaseMs: LEASE_MS,
    retryDelaysMs: RETRY_DELAYS_MS,
  });
  const running = (async () => {
    while (!crashed.signal.aborted) {
      await worker.runPass(crashed.signal);
      await new Promise((r) => setTimeout(r, 50));
    }
    worker.close();
  })();
  return {
    crash: async () => {
      crashed.abort();
      await running;
    },
  };
}

let server: TestServer;
let receiver: ChaosReceiver;
let secret = "";

beforeAll(async () => {
  server = await startWebhookServer();
  receiver = await startChaosReceiver(() => secret);
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

const mode = process.env.DATABASE_URL ? "worker processes killed with SIGKILL" : "in-process workers cut off";

describe(`no delivery is lost (${mode})`, () => {
  it("delivers every event at least once through random failures and repeated crashes", {
    timeout: 600_000,
  }, async () => {
    const user = await signUp(server, "chaos");
    const key = await mintApiKey(server, user, ["*"]);
    const endpoint = await createEndpoint(server, bearer(key), { url: receiver.url, enabled_events: ["*"] });
    secret = endpoint.secret;
    const start = () =>
      server.database.url ? processWorker(server.database.url) : Promise.resolve(inProcessWorker(server));
    const emit = async (count: number) => {
      for (let i = 0; i < count; i++) await createEvaluation(server.api, bearer(key));
    };

    await emit(25);
    // The worker is killed while a delivery is in flight, three times, with new events arriving meanwhile.
    let worker = await start();
    let crashes = 0;
    while (crashes < 3) {
      const seen = receiver.requests;
      const emitting = emit(10);
      await until(() => receiver.pending > 0 && receiver.requests > seen, 60_000, "a delivery in flight");
      await worker.crash();
      crashes++;
      await emitting;
      worker = await start();
    }
    // Then two workers share the queue until it is empty.
    const second = await start();

    const teamEvents = await server.database.db.select().from(events).where(eq(events.teamId, user.teamId));
    expect(teamEvents).toHaveLength(55);
    await until(
      async () => {
        const rows = await server.database.db
          .select({ status: webhookDeliveries.status })
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.endpointId, endpoint.id));
        return rows.length === 55 && rows.every((r) => r.status === "delivered");
      },
      120_000,
      "every delivery to be delivered",
    );
    await Promise.all([worker.crash(), second.crash()]);

    // Every event reached the receiver, correctly signed.
    expect(receiver.badSignatures).toBe(0);
    const missing = teamEvents.filter((e) => !receiver.accepted.has(e.id)).map((e) => e.id);
    expect(missing).toEqual([]);
    // Repeats are resends of one delivery: the same bytes, the same event id.
    for (const [deliveryId, bodies] of receiver.bodiesByDelivery) {
      expect(bodies.size, deliveryId).toBe(1);
    }
    const repeated = [...receiver.accepted.values()].filter((n) => n > 1).length;
    process.stdout.write(
      `no-loss: ${teamEvents.length} events, ${receiver.requests} requests, ${repeated} events received more than once, ${crashes} crashes\n`,
    );
  });
});
