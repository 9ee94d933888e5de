import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type FixtureSite,
  startBrowserServer,
  startFixtureSite,
  type TestBrowserServer,
} from "@rubricon/agents/testing";
import { EvaluationList } from "@rubricon/contracts";
import { autouserRuns, events, ratings } from "@rubricon/db";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { testRedisUrl } from "@rubricon/vitest-config/redis";
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectStatus } from "./helpers/assertions";
import { createEvaluationFor, insertAutouser, runAutousers } from "./helpers/autousers";
import { bearer, call, mintApiKey, signUp } from "./helpers/clients";
import { startTestServer, TEST_SECRETS, type TestServer } from "./helpers/server";
import { createEndpoint, type Receiver, startReceiver, until, WEBHOOKS_ON } from "./helpers/webhooks";

/**
 * Rubricon scaled out as an operator runs it: two web instances and two workers, each its own OS process, on one
 * Postgres, one Redis and one browser server that the workers reach over a websocket (`BROWSER_WS_ENDPOINT`).
 * The workers are the real `apps/worker` entry. A third, in-process instance on the same database only signs
 * the test's users up; every request under test goes to the web processes.
 */
const HERE = dirname(fileURLToPath(import.meta.url));
const WORKER_ENTRY = join(HERE, "../../../apps/worker/src/main.ts");

interface Proc {
  child: ChildProcess;
  output: string;
}
interface WebProc extends Proc {
  url: string;
  api: string;
}

let database: TestDatabase;
let control: TestServer;
let site: FixtureSite;
let receiver: Receiver;
let browserServer: TestBrowserServer;
let shared: Record<string, string>;
const webs: WebProc[] = [];
const workers: Proc[] = [];

function spawnProc(args: string[], cwd: string, env: NodeJS.ProcessEnv, readyWhen: RegExp): Promise<Proc> {
  const child = spawn(process.execPath, ["--import", "tsx", ...args], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const proc: Proc = { child, output: "" };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`process did not start: ${proc.output}`)), 60_000);
    const collect = (chunk: Buffer) => {
      proc.output += chunk.toString();
      if (readyWhen.test(proc.output)) {
        clearTimeout(timer);
        resolve(proc);
      }
    };
    child.stdout!.on("data", collect);
    child.stderr!.on("data", collect);
    child.once("exit", (code) => reject(new Error(`process exited ${code}: ${proc.output}`)));
  });
}

async function startWeb(): Promise<WebProc> {
  const config = { databaseUrl: database.url, env: shared };
  const proc = await spawnProc(
    [join(HERE, "helpers/app-main.ts"), JSON.stringify(config)],
    join(HERE, ".."),
    process.env,
    /listening http:\S+\n/,
  );
  const url = /listening (http:\S+)\n/.exec(proc.output)![1]!;
  return { ...proc, url, api: `${url}/api/v1` };
}

function startWorker(baseUrl: string): Promise<Proc> {
  return spawnProc(
    [WORKER_ENTRY],
    dirname(WORKER_ENTRY),
    {
      PATH: process.env.PATH,
      NODE_ENV: "test",
      DATABASE_URL: database.url,
      BASE_URL: baseUrl,
      BROWSER_WS_ENDPOINT: browserServer.wsEndpoint,
      AUTOUSER_ALLOW_PRIVATE_URLS: "true",
      AUTOUSER_CONCURRENCY: "2",
      ...shared,
    },
    /started/,
  );
}

/** A web process as the test helpers expect a server: its URLs, with the control instance's database. */
const asServer = (web: WebProc): TestServer => ({ ...control, url: web.url, api: web.api });

function stopped(proc: Proc): Promise<number | null> {
  if (proc.child.exitCode !== null) return Promise.resolve(proc.child.exitCode);
  return new Promise((resolve) => proc.child.once("close", (code) => resolve(code)));
}

/** How many runs each worker reported settled, from its own log. */
function settledBy(proc: Proc): number {
  return [...proc.output.matchAll(/autouser runs settled: (\d+) completed/g)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
}

async function runsOf(evaluationId: string) {
  return database.db.select().from(autouserRuns).where(eq(autouserRuns.evaluationId, evaluationId));
}

/** The evaluation's runs once every one has settled, polled gently: two workers share the machine's CPU. */
async function settledRuns(evaluationId: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await runsOf(evaluationId);
    if (rows.every((r) => r.status === "completed" || r.status === "failed")) return rows;
    if (Date.now() > deadline) {
      const counts: Record<string, number> = {};
      for (const r of rows) counts[r.status] = (counts[r.status] ?? 0) + 1;
      throw new Error(`runs not settled in ${timeoutMs} ms: ${JSON.stringify(counts)}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

beforeAll(async () => {
  database = await createTestDatabase({
    ...process.env,
    DATABASE_URL: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  });
  shared = {
    ...TEST_SECRETS,
    ...WEBHOOKS_ON,
    REDIS_URL: await testRedisUrl(),
    REDIS_KEY_PREFIX: `rubricon-test:${randomBytes(6).toString("hex")}:`,
    DATA_DIR: mkdtempSync(join(tmpdir(), "rubricon-scale-")),
    EMBEDDED_WORKER: "false",
  };
  [control, site, receiver, browserServer] = await Promise.all([
    startTestServer({ database, env: shared }),
    startFixtureSite(),
    startReceiver(),
    startBrowserServer(),
  ]);
  webs.push(...(await Promise.all([startWeb(), startWeb()])));
  workers.push(...(await Promise.all([startWorker(webs[0]!.url), startWorker(webs[0]!.url)])));
}, 120_000);

afterAll(async () => {
  for (const proc of [...webs, ...workers]) proc.child.kill("SIGKILL");
  await Promise.all([...webs, ...workers].map(stopped));
  await Promise.all([control?.close(), site?.close(), receiver?.close(), browserServer?.close()]);
  await database?.dispose();
});

describe("two web instances and two workers", () => {
  it("split 40 autouser runs between the workers, run none twice, and deliver each event's webhook once", async () => {
    const owner = await signUp(control, "scale-out");
    const key = await mintApiKey(control, owner, ["*"]);
    await createEndpoint(asServer(webs[0]!), bearer(key), { url: receiver.url, enabled_events: ["*"] });
    const autouserId = await insertAutouser(control, owner.teamId);
    const evaluation = await createEvaluationFor(asServer(webs[1]!), key, {
      name: "Scale-out",
      type: "SSE",
      evaluationMethod: "ai",
      designUrls: [{ url: site.urls.clean }],
    });
    const before = workers.map(settledBy);
    const queued = await runAutousers(asServer(webs[0]!), key, evaluation.id, {
      autouserIds: [autouserId],
      agentCount: 40,
    });
    expectStatus(queued, 202);
    expect(queued.body.data.runs).toHaveLength(40);

    const runs = await settledRuns(evaluation.id, 360_000);
    expect(runs.map((r) => r.status)).toEqual(Array(40).fill("completed"));
    // Claimed once each: no run started a second time on either worker.
    expect(runs.map((r) => r.attemptCount)).toEqual(Array(40).fill(1));
    const rated = await database.db
      .select({ runId: ratings.autouserRunId })
      .from(ratings)
      .where(eq(ratings.evaluationId, evaluation.id));
    expect(rated).toHaveLength(40);
    expect(new Set(rated.map((r) => r.runId)).size).toBe(40);

    const shares = await until(
      () => {
        const counts = workers.map((w, i) => settledBy(w) - before[i]!);
        return counts[0]! + counts[1]! === 40 ? counts : null;
      },
      10_000,
      "both workers to log their runs",
    );
    expect(Math.min(...shares!)).toBeGreaterThan(0);

    // Every event of the team reaches the receiver exactly once, whichever worker delivered it.
    const logged = await database.db
      .select({ id: events.id })
      .from(events)
      .where(eq(events.teamId, owner.teamId));
    expect(logged.length).toBeGreaterThanOrEqual(81);
    const eventIdOf = (body: string) => (JSON.parse(body) as { id: string }).id;
    await until(
      () => new Set(receiver.requests.map((r) => eventIdOf(r.body))).size >= logged.length,
      60_000,
      "every event to be delivered",
    );
    await new Promise((r) => setTimeout(r, 1_500));
    const delivered = receiver.requests
      .map((r) => eventIdOf(r.body))
      .filter((id) => logged.some((e) => e.id === id));
    expect(delivered.sort()).toEqual(logged.map((e) => e.id).sort());
  }, 480_000);

  it("hold one team's per-minute budget across both web instances", async () => {
    const user = await signUp(control, "scale-out-limit", { plan: "free" });
    const key = await mintApiKey(control, user, ["*"]);
    // What the team has left after its setup, read from one instance; the rest of the budget is then spent
    // concurrently over both.
    const first = await call(EvaluationList, `${webs[0]!.api}/evaluations`, { headers: bearer(key) });
    expect(first.status).toBe(200);
    const left = Number(first.headers.get("x-ratelimit-remaining"));
    expect(left).toBeGreaterThan(30);
    const results = await Promise.all(
      Array.from({ length: left + 30 }, (_, i) =>
        call(EvaluationList, `${webs[i % 2]!.api}/evaluations`, { headers: bearer(key) }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(left);
    expect(results.filter((r) => r.status === 429)).toHaveLength(30);
  });

  it("hand a stopped worker's runs to the other: none lost, no comparison rated twice", async () => {
    const owner = await signUp(control, "scale-out-stop");
    const key = await mintApiKey(control, owner, ["*"]);
    const autouserId = await insertAutouser(control, owner.teamId);
    const designs = [site.urls.clean, site.urls.defects, site.urls.flowStart, site.urls.flowCheckout];
    const evaluation = await createEvaluationFor(asServer(webs[0]!), key, {
      name: "Scale-out stop",
      type: "SSE",
      evaluationMethod: "ai",
      designUrls: designs.map((url) => ({ url })),
    });
    expectStatus(
      await runAutousers(asServer(webs[1]!), key, evaluation.id, {
        autouserIds: [autouserId],
        agentCount: 6,
      }),
      202,
    );
    // Both workers busy (two runs each), then the first is told to stop.
    await until(
      async () => (await runsOf(evaluation.id)).filter((r) => r.status === "running").length === 4,
      60_000,
      "four runs in flight",
    );
    const [leaving, staying] = workers as [Proc, Proc];
    leaving.child.kill("SIGTERM");
    // It exits on its own (no kill needed); its runs are the other worker's to finish.
    expect(await stopped(leaving), leaving.output.slice(-3000)).not.toBeNull();
    expect(leaving.output).toMatch(/SIGTERM received, stopping/);

    const runs = await settledRuns(evaluation.id, 240_000);
    expect(runs.map((r) => r.status)).toEqual(Array(6).fill("completed"));
    expect(staying.child.exitCode).toBeNull();
    const rated = await database.db
      .select({ runId: ratings.autouserRunId, comparisonId: ratings.comparisonId })
      .from(ratings)
      .where(
        and(
          eq(ratings.evaluationId, evaluation.id),
          inArray(
            ratings.autouserRunId,
            runs.map((r) => r.id),
          ),
        ),
      );
    // Each of the 6 runs rated each of the 4 comparisons exactly once.
    expect(rated).toHaveLength(24);
    expect(new Set(rated.map((r) => `${r.runId}/${r.comparisonId}`)).size).toBe(24);
  }, 360_000);
});
