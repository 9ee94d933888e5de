import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FixtureSite } from "@rubricon/agents/testing";
import { startFixtureSite } from "@rubricon/agents/testing";
import { AutouserRun, RatingList } from "@rubricon/contracts";
import { events } from "@rubricon/db";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectStatus } from "./helpers/assertions";
import {
  createEvaluationFor,
  insertAutouser,
  openRunStream,
  readUntil,
  readUntilEnd,
  runAutousers,
  type StreamEvent,
  startAutouserServer,
  startRunLoop,
} from "./helpers/autousers";
import { bearer, bodyOf, call, mintApiKey, signUp } from "./helpers/clients";
import type { TestServer } from "./helpers/server";

/**
 * A worker process killed (SIGKILL) in the middle of a run: after its lease runs out another worker takes the
 * run over and finishes it, and no comparison is rated twice.
 */
const HERE = dirname(fileURLToPath(import.meta.url));
const LEASE_MS = 2_500;

let database: TestDatabase;
let server: TestServer;
let site: FixtureSite;
let dataDir: string;

beforeAll(async () => {
  database = await createTestDatabase({
    ...process.env,
    DATABASE_URL: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  });
  dataDir = mkdtempSync(join(tmpdir(), "rubricon-crash-"));
  [server, site] = await Promise.all([
    startAutouserServer({ database, env: { DATA_DIR: dataDir } }),
    startFixtureSite(),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.close(), site?.close()]);
  await database?.dispose();
});

function startWorkerProcess(): Promise<ChildProcess> {
  const config = { databaseUrl: database.url, dataDir, leaseMs: LEASE_MS, heartbeatMs: 300 };
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(HERE, "helpers/autouser-worker-main.ts"), JSON.stringify(config)],
    { cwd: join(HERE, ".."), stdio: ["ignore", "pipe", "pipe"] },
  );
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${output}`)), 60_000);
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("ready")) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout!.on("data", collect);
    child.stderr!.on("data", collect);
    child.once("exit", (code) => reject(new Error(`worker exited ${code}: ${output}`)));
  });
}

describe("a worker killed mid-run", () => {
  it("has its run finished by another worker after the lease, with no duplicate ratings", async () => {
    const owner = await signUp(server, "crash-runs");
    const key = await mintApiKey(server, owner, ["evaluations:*", "autousers:*", "ratings:read"]);
    const autouserId = await insertAutouser(server, owner.teamId);
    const designs = [site.urls.clean, site.urls.defects, site.urls.flowStart, site.urls.flowCheckout];
    const evaluation = await createEvaluationFor(server, key, {
      name: "Crash",
      type: "SSE",
      evaluationMethod: "ai",
      designUrls: designs.map((url) => ({ url })),
    });
    const queued = await runAutousers(server, key, evaluation.id, { autouserIds: [autouserId] });
    expectStatus(queued, 202);
    const runId = queued.body.data.runs[0]!.id;

    const stream = await openRunStream(server, key, evaluation.id);
    const doomed = await startWorkerProcess();
    const beforeKill = await readUntil(stream, "rating", 60_000);
    doomed.kill("SIGKILL");
    await new Promise((resolve) => doomed.once("exit", resolve));
    expect(beforeKill.filter((e) => e.event === "started")).toHaveLength(1);

    const loop = startRunLoop(server, { leaseMs: LEASE_MS });
    let rest: StreamEvent[] = [];
    try {
      rest = await readUntilEnd(stream, 90_000);
    } finally {
      await loop.stop();
    }
    const all = [...beforeKill, ...rest];
    // Taken over once, after the lease ran out.
    expect(all.filter((e) => e.event === "started")).toHaveLength(2);
    expect(all.at(-2)!.event).toBe("completed");

    const run = bodyOf(
      await call(AutouserRun, `${server.api}/evaluations/${evaluation.id}/autouser-runs/${runId}`, {
        headers: bearer(key),
      }),
    );
    expect(run).toMatchObject({ status: "completed", attemptCount: 2, ratingsCreated: 4 });
    const ratings = bodyOf(
      await call(RatingList, `${server.api}/evaluations/${evaluation.id}/ratings?limit=100`, {
        headers: bearer(key),
      }),
    );
    expect(ratings.data).toHaveLength(4);
    expect(new Set(ratings.data.map((r) => r.comparisonId)).size).toBe(4);
    const created = await server.database.db
      .select()
      .from(events)
      .where(and(eq(events.teamId, owner.teamId), eq(events.type, "rating.created")));
    expect(created).toHaveLength(4);
    const completed = await server.database.db
      .select()
      .from(events)
      .where(and(eq(events.teamId, owner.teamId), eq(events.type, "autouser_run.completed")));
    expect(completed).toHaveLength(1);
  }, 180_000);
});
