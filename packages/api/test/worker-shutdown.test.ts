import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { requireDist } from "@rubricon/vitest-config/dist";
import { testRedisUrl } from "@rubricon/vitest-config/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_SECRETS } from "./helpers/server";

/**
 * The worker process stops cleanly on a signal, even when a wrapper passes the signal twice. With
 * `TEST_TARGET=dist` it is the worker people run: `node --max-semi-space-size=2 worker.mjs` in dist/apps/web, in
 * production, given `REDIS_URL` as compose gives it; otherwise the sources through tsx.
 */
const WORKER = fileURLToPath(new URL("../../../apps/worker/src/main.ts", import.meta.url));
const fromDist = process.env.TEST_TARGET === "dist";
let database: TestDatabase;

beforeAll(async () => {
  // On Postgres the worker shares the test's database; PGlite would need the test's own in-memory one.
  database = await createTestDatabase({
    ...process.env,
    DATABASE_URL: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  });
});
afterAll(() => database?.dispose());

async function startWorker() {
  const env = {
    ...process.env,
    ...TEST_SECRETS,
    DATABASE_URL: database.url,
    WEBHOOKS_ENABLED: "true",
    BASE_URL: "http://127.0.0.1:1",
  };
  const child = fromDist
    ? spawn(process.execPath, ["--max-semi-space-size=2", "worker.mjs"], {
        cwd: join(requireDist(), "apps/web"),
        env: { ...env, NODE_ENV: "production", REDIS_URL: await testRedisUrl() },
        stdio: ["ignore", "pipe", "pipe"],
      })
    : spawn(process.execPath, ["--import", "tsx", WORKER], {
        env: { ...env, NODE_ENV: "test" },
        stdio: ["ignore", "pipe", "pipe"],
      });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  // "close" rather than "exit": only then has everything the process wrote been read from its pipes.
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const waitFor = async (text: string) => {
    const deadline = Date.now() + 120_000;
    while (!output.includes(text)) {
      if (Date.now() > deadline) throw new Error(`worker never printed "${text}":\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { child, exited, waitFor, output: () => output };
}

describe("the worker process", () => {
  it("finishes its work and exits 0 when SIGTERM comes twice", async () => {
    const worker = await startWorker();
    await worker.waitFor("started");
    worker.child.kill("SIGTERM");
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toContain("SIGTERM received, stopping");
    expect(worker.output()).toContain("stopped");
  }, 240_000);

  it("stops quietly on Ctrl-C (SIGINT)", async () => {
    const worker = await startWorker();
    await worker.waitFor("started");
    worker.child.kill("SIGINT");
    expect(await worker.exited).toBe(0);
    expect(worker.output()).not.toMatch(/error|ELIFECYCLE/i);
  }, 240_000);
});
