import { mkdtempSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHECK_TIMEOUT_MS, READINESS_REUSE_MS } from "../src/observability/health";
import { type ChildProcess, freePort, SERVER_MAIN, startProcess, WORKER_MAIN } from "./helpers/process";
import { TEST_SECRETS } from "./helpers/server";
import { TcpProxy } from "./helpers/tcp-proxy";

/**
 * `/healthz` and `/readyz` of the web process and the worker, over real HTTP, with Postgres behind a TCP proxy the
 * test can turn into a black hole (accepts, never answers): readiness is 503 within a second, then 200 again once
 * Postgres is back; liveness never moves.
 */
const PG = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** Forwards to Postgres, or holds connections open without a byte in answer. */
class PostgresProxy {
  mode: "forward" | "blackhole" = "forward";
  private readonly sockets = new Set<Socket>();
  readonly server: Server;

  constructor(target: URL) {
    this.server = createServer((client) => {
      this.track(client);
      if (this.mode === "blackhole") return;
      const upstream = connect(Number(target.port || 5432), target.hostname);
      this.track(upstream);
      client.pipe(upstream).pipe(client);
    });
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => this.sockets.delete(socket));
  }

  /** Switches mode and drops every open connection, so the app's pool reconnects into the new mode. */
  set(mode: "forward" | "blackhole"): void {
    this.mode = mode;
    for (const s of this.sockets) s.destroy();
  }

  async listen(): Promise<number> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    return (this.server.address() as { port: number }).port;
  }
}

let database: TestDatabase;
let proxy: PostgresProxy;
let redisProxy: TcpProxy;
let web: ChildProcess;
let worker: ChildProcess;
let webUrl: string;
let workerUrl: string;

beforeAll(async () => {
  database = await createTestDatabase({ ...process.env, DATABASE_URL: PG });
  proxy = new PostgresProxy(new URL(database.url!));
  const proxied = new URL(database.url!);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(await proxy.listen());
  redisProxy = TcpProxy.to(REDIS);
  await redisProxy.listen();
  const [webPort, healthPort] = [await freePort(), await freePort()];
  webUrl = `http://127.0.0.1:${webPort}`;
  workerUrl = `http://127.0.0.1:${healthPort}`;
  const env = {
    ...TEST_SECRETS,
    NODE_ENV: "test",
    DATABASE_URL: proxied.toString(),
    REDIS_URL: redisProxy.url(REDIS),
    REDIS_KEY_PREFIX: `health-${webPort}:`,
    DATA_DIR: mkdtempSync(join(tmpdir(), "rubricon-health-")),
    EMBEDDED_WORKER: "false",
    SHUTDOWN_TIMEOUT_MS: "3000",
  };
  web = startProcess(SERVER_MAIN, { ...env, PORT: String(webPort), BASE_URL: webUrl });
  worker = startProcess(WORKER_MAIN, { ...env, WORKER_HEALTH_PORT: String(healthPort), BASE_URL: webUrl });
  await Promise.all([web.waitFor("Rubricon ready", 90_000), worker.waitFor("health on port", 90_000)]);
}, 120_000);

afterAll(async () => {
  for (const p of [web, worker]) {
    if (p && p.child.exitCode === null) {
      p.child.kill("SIGTERM");
      await p.exited;
    }
  }
  proxy?.server.close();
  await redisProxy?.close();
  await database?.dispose();
});

async function probe(
  url: string,
): Promise<{ status: number; body: Record<string, unknown>; ms: number; text: string }> {
  const started = Date.now();
  const res = await fetch(url).catch((err: unknown) => {
    // A refused probe means a process died: say what each one printed, or the failure cannot be read.
    const said = [web, worker].map(
      (p) => `exit ${p.child.exitCode}:\n${p.stdout().slice(-4000)}${p.stderr().slice(-4000)}`,
    );
    throw new Error(`${url}: ${String(err)}; web ${said[0]}\nworker ${said[1]}`);
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), ms: Date.now() - started, text };
}

describe("health and readiness", () => {
  it("are ok with every dependency up, and say nothing about hosts or versions", async () => {
    for (const base of [webUrl, workerUrl]) {
      const live = await probe(`${base}/healthz`);
      expect(live).toMatchObject({ status: 200, body: { status: "ok" } });
      const ready = await probe(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: "ok", checks: { database: "ok", redis: "ok", files: "ok" } });
      expect(ready.text).not.toMatch(/127\.0\.0\.1|postgres|redis:\/\/|\d+\.\d+\.\d+/i);
    }
  });

  it("readiness is 503 within a second while Postgres hangs, and 200 once it is back", async () => {
    proxy.set("blackhole");
    // A probe's answer is reused for a second.
    await new Promise((r) => setTimeout(r, READINESS_REUSE_MS + 50));
    for (const base of [webUrl, workerUrl]) {
      // The first probe may meet the dropped connection (a fast failure); the next one waits on a new
      // connection that is accepted and never answered.
      const first = await probe(`${base}/readyz`);
      expect(first.status).toBe(503);
      await new Promise((r) => setTimeout(r, READINESS_REUSE_MS + 50));
      const ready = await probe(`${base}/readyz`);
      expect(ready.status).toBe(503);
      // The check gives up after its budget; the rest is the probe's round trip, which a loaded CI machine can
      // stretch past a second without the check hanging (a hung check would take the driver's own timeouts).
      expect(ready.ms).toBeLessThan(CHECK_TIMEOUT_MS + 1_200);
      expect(ready.body).toEqual({
        status: "failing",
        checks: { database: "timeout", redis: "ok", files: "ok" },
      });
      expect((await probe(`${base}/healthz`)).status).toBe(200);
    }
    proxy.set("forward");
    for (const base of [webUrl, workerUrl]) {
      const deadline = Date.now() + 20_000;
      let ready = await probe(`${base}/readyz`);
      while (ready.status !== 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        ready = await probe(`${base}/readyz`);
      }
      expect(ready.body).toEqual({ status: "ok", checks: { database: "ok", redis: "ok", files: "ok" } });
    }
    // The cause is in the log, not the body.
    expect(web.stdout()).toContain("readiness check database failed");
  }, 60_000);

  it("with Redis refusing connections the processes stay ready (degraded): they serve without it", async () => {
    await redisProxy.cut();
    try {
      await new Promise((r) => setTimeout(r, READINESS_REUSE_MS + 50));
      for (const base of [webUrl, workerUrl]) {
        const ready = await probe(`${base}/readyz`);
        expect(ready.status).toBe(200);
        expect(ready.body).toEqual({
          status: "degraded",
          checks: { database: "ok", redis: "failing", files: "ok" },
        });
      }
      // The API keeps answering (limits fail open).
      const res = await fetch(`${webUrl}/api/v1/evaluations`);
      expect(res.status).toBe(401);
    } finally {
      await redisProxy.restore();
    }
  }, 30_000);

  it("the API still answers beside them", async () => {
    const res = await fetch(`${webUrl}/api/v1/evaluations`);
    expect(res.status).toBe(401);
  });
});
