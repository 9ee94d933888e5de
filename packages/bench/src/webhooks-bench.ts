/**
 * The webhooks part of `pnpm bench`: the real worker process (`apps/worker`) delivering to a loopback receiver.
 * Throughput is measured by draining a backlog; latency (event committed → request received) under a steady
 * 500 events per second.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import {
  bootstrapAccount,
  type CoreContext,
  createWebhookEndpoint,
  emitEvent,
  systemClock,
} from "@rubricon/core";
import { createDatabase } from "@rubricon/db";
import { atLeast, below, type Figure, info } from "./figures";
import type { BenchDatabase } from "./seed";

const BACKLOG = 5000;
const STEADY_RATE = 500;
const STEADY_SECONDS = 10;
const TARGET_PER_SECOND = 500;
const TARGET_P99_MS = 1000;
const WORKER_MAIN = resolve(dirname(fileURLToPath(import.meta.url)), "../../../apps/worker/src/main.ts");

interface Receiver {
  url: string;
  /** performance.now() of the first receipt of each event id. */
  receivedAt: Map<string, number>;
  requests: number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const state: Receiver = { url: "", receivedAt: new Map(), requests: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      state.requests++;
      const id = String(req.headers["service-event-id"]);
      if (!state.receivedAt.has(id)) state.receivedAt.set(id, performance.now());
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  state.close = () =>
    new Promise((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
  return state;
}

function startWorker(databaseUrl: string, encryptionKey: string, log: (m: string) => void): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER_MAIN], {
    cwd: dirname(WORKER_MAIN),
    env: {
      ...process.env,
      NODE_ENV: "development",
      DATABASE_URL: databaseUrl,
      DATA_DIR: join(tmpdir(), `rubricon-bench-worker-${randomBytes(4).toString("hex")}`),
      ENCRYPTION_KEY: encryptionKey,
      WEBHOOKS_ENABLED: "true",
      WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stderr?.on("data", (c: Buffer) => log(`worker: ${c.toString().trim()}`));
  return child;
}

async function until(check: () => boolean, timeoutMs: number, label: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export async function benchWebhooks(bench: BenchDatabase, log: (m: string) => void): Promise<Figure[]> {
  const encryptionKey = randomBytes(32).toString("hex");
  const ctx: CoreContext = { db: bench.database.db, clock: systemClock, baseUrl: "http://127.0.0.1" };
  const { userId, teamId } = await bootstrapAccount(ctx, {
    email: "webhooks-bench@example.com",
    password: "bench-password",
    teamName: "Webhooks bench",
    plan: "enterprise",
    scopes: ["*"],
  });
  const receiver = await startReceiver();
  await createWebhookEndpoint(
    { ...ctx, webhooks: { encryptionKey, allowPrivateUrls: true } },
    { userId, boundTeamId: teamId, principal: "api_key" },
    { url: receiver.url, enabled_events: ["*"] },
  );
  // The emitter gets a pool of its own, wide enough to offer the steady rate without falling behind.
  const emitter = createDatabase({ url: bench.url, maxConnections: 16 });
  let sequence = 0;
  const committedAt = new Map<string, number>();
  const emitOne = async () => {
    const n = sequence++;
    const event = await emitter.db.transaction((tx) =>
      emitEvent(tx, ctx, {
        type: "rating.created",
        teamId,
        object: { id: `rat_bench_${n}`, object: "rating", dimensionRatings: { overall: 1 + (n % 7) } },
      }),
    );
    committedAt.set(event.id, performance.now());
  };

  let worker: ChildProcess | undefined;
  try {
    log(`webhooks: queueing a backlog of ${BACKLOG} events`);
    for (let i = 0; i < BACKLOG; i += 50) await Promise.all(Array.from({ length: 50 }, emitOne));
    worker = startWorker(bench.url, encryptionKey, log);
    await until(() => receiver.receivedAt.size > 0, 60_000, "the first delivery");
    const drainStart = performance.now();
    const firstCount = receiver.receivedAt.size;
    await until(() => receiver.receivedAt.size >= BACKLOG, 120_000, "the backlog to drain");
    const drainPerSecond = (BACKLOG - firstCount) / ((performance.now() - drainStart) / 1000);
    log(`webhooks: backlog drained at ${drainPerSecond.toFixed(0)} deliveries/s`);

    log(`webhooks: ${STEADY_RATE} events/s for ${STEADY_SECONDS} s`);
    const started = performance.now();
    const tickMs = 20;
    const perTick = (STEADY_RATE * tickMs) / 1000;
    const emissions: Promise<void>[] = [];
    for (let tick = 0; tick < (STEADY_SECONDS * 1000) / tickMs; tick++) {
      const due = started + tick * tickMs;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      for (let i = 0; i < perTick; i++) emissions.push(emitOne());
    }
    await Promise.all(emissions);
    const offeredPerSecond = (sequence - BACKLOG) / ((performance.now() - started) / 1000);
    const steadyEvents = [...committedAt.keys()].slice(BACKLOG);
    await until(
      () => steadyEvents.every((id) => receiver.receivedAt.has(id)),
      60_000,
      "the steady-state deliveries",
    );
    const latencies = steadyEvents
      .map((id) => receiver.receivedAt.get(id)! - committedAt.get(id)!)
      .sort((a, b) => a - b);
    const lastReceipt = Math.max(...steadyEvents.map((id) => receiver.receivedAt.get(id)!));
    const steadyPerSecond = steadyEvents.length / ((lastReceipt - started) / 1000);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    return [
      atLeast(`deliveries/s draining a ${BACKLOG}-event backlog`, drainPerSecond, "/s", TARGET_PER_SECOND),
      info("events/s offered (committed)", offeredPerSecond, "/s"),
      // On a small machine the emitter itself may offer less than the steady rate; deliveries must keep up.
      atLeast("deliveries/s at that rate", steadyPerSecond, "/s", Math.round(offeredPerSecond * 0.95)),
      info("event-to-delivery latency p50", p50, "ms"),
      below("event-to-delivery latency p99", p99, "ms", TARGET_P99_MS),
      info("duplicate receipts", receiver.requests - receiver.receivedAt.size, ""),
    ];
  } finally {
    if (worker && worker.exitCode === null) {
      const exited = new Promise<void>((done) => worker!.once("exit", () => done()));
      worker.kill("SIGTERM");
      await exited;
    }
    await receiver.close();
    await emitter.close();
  }
}
