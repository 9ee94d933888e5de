/**
 * The autousers part of `pnpm bench`: one worker (the engine `pnpm worker` runs, in this process) driving
 * single-comparison runs with the heuristic judge on real Chromium against a loopback page. Measures runs per
 * minute, the browser's peak memory per context, and how long a run event takes from its commit to a stream
 * reader.
 */
import { execFileSync } from "node:child_process";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { launchAgentBrowser, RUN_PHASE_CHANNEL, type RunPhase } from "@rubricon/agents";
import { autouserRunLoop, loadEnv } from "@rubricon/api";
import { EvaluationCreateInput } from "@rubricon/contracts";
import {
  type Actor,
  bootstrapAccount,
  type CoreContext,
  createEvaluation,
  RunEventWaker,
  runAutousers,
  streamRunEvents,
  systemClock,
} from "@rubricon/core";
import { autousers, files, newId } from "@rubricon/db";
import { eq, sql } from "drizzle-orm";
import { atLeast, atMost, below, type Figure, info } from "./figures";
import type { BenchDatabase } from "./seed";

const RUNS = Number(process.env.BENCH_AUTOUSER_RUNS ?? 40);
const TARGET_RUNS_PER_MINUTE = 90;
const TARGET_STREAM_P99_MS = 250;
const TARGET_CONTEXT_MB = 150;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bench shop</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body><header><nav aria-label="Main">
<a href="/">Home</a> <a href="/">Shop</a></nav></header><main><h1>Fresh tea</h1><p>Pick a tea you like. We pack
it the same day and send it to your door in two days.</p><button type="button">Add to basket</button></main>
</body></html>`;

async function startSite(): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/**
 * Memory (kB) of every Chromium process below this one: resident (RSS, which counts the pages Chromium's
 * processes share once per process) and proportional (PSS from /proc/<pid>/smaps_rollup, which splits each
 * shared page among its sharers, so the sum is what the browser really holds).
 */
function browserMemoryKb(): {
  rss: number;
  pss: number;
  byType: Map<string, { pss: number; count: number }>;
} {
  const table = execFileSync("ps", ["-eo", "pid=,ppid=,rss=,comm="], { encoding: "utf8" });
  const rows = table
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .map(([pid, ppid, rss, ...comm]) => ({
      pid: Number(pid),
      ppid: Number(ppid),
      rss: Number(rss),
      comm: comm.join(" "),
    }));
  const below = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of rows) {
      if (!below.has(r.pid) && below.has(r.ppid)) {
        below.add(r.pid);
        grew = true;
      }
    }
  }
  const chromium = rows.filter((r) => below.has(r.pid) && r.pid !== process.pid && /chrom/i.test(r.comm));
  let pss = 0;
  // Which of Chromium's processes holds it: the browser, its zygotes, the GPU and utility processes, renderers.
  const byType = new Map<string, { pss: number; count: number }>();
  for (const r of chromium) {
    try {
      const rollup = readFileSync(`/proc/${r.pid}/smaps_rollup`, "utf8");
      const kb = Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      pss += kb;
      const cmdline = readFileSync(`/proc/${r.pid}/cmdline`, "utf8");
      const type = /--type=([\w-]+)/.exec(cmdline)?.[1] ?? "browser";
      const entry = byType.get(type) ?? { pss: 0, count: 0 };
      entry.pss += kb;
      entry.count++;
      byType.set(type, entry);
    } catch {
      // The process ended between `ps` and the read.
    }
  }
  return { rss: chromium.reduce((n, r) => n + r.rss, 0), pss, byType };
}

/**
 * CPU seconds used so far by this process and by every Chromium process below it. A renderer that ended is
 * counted in its reaper's `cutime`/`cstime` (the zygote or the browser process), so a difference between two
 * readings includes the contexts opened and closed between them, as long as the browser itself lives on.
 */
function cpuSeconds(): { node: number; browser: number } {
  const ticks = 100; // USER_HZ on Linux
  const table = execFileSync("ps", ["-eo", "pid=,ppid=,comm="], { encoding: "utf8" });
  const rows = table
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .map(([pid, ppid, ...comm]) => ({ pid: Number(pid), ppid: Number(ppid), comm: comm.join(" ") }));
  const below = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of rows) {
      if (!below.has(r.pid) && below.has(r.ppid)) {
        below.add(r.pid);
        grew = true;
      }
    }
  }
  let browser = 0;
  for (const r of rows) {
    if (!below.has(r.pid) || r.pid === process.pid || !/chrom/i.test(r.comm)) continue;
    try {
      const stat = readFileSync(`/proc/${r.pid}/stat`, "utf8");
      // Fields after the command's closing parenthesis: utime, stime, cutime, cstime are 14–17 of the line.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      browser += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / ticks;
    } catch {
      // The process ended between `ps` and the read.
    }
  }
  const own = process.cpuUsage();
  return { node: (own.user + own.system) / 1e6, browser };
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

export async function benchAutousers(bench: BenchDatabase, log: (line: string) => void): Promise<Figure[]> {
  const env = loadEnv({
    ...process.env,
    NODE_ENV: "test",
    DATABASE_URL: bench.url,
    BASE_URL: "http://127.0.0.1:1",
    DATA_DIR: mkdtempSync(join(tmpdir(), "rubricon-bench-autousers-")),
    AUTOUSER_ALLOW_PRIVATE_URLS: "true",
    AUTOUSER_PROVIDER: undefined,
    AUTOUSER_MODEL: undefined,
  });
  const db = bench.database.db;
  const ctx: CoreContext = { db, clock: systemClock, baseUrl: env.baseUrl };
  const { userId, teamId } = await bootstrapAccount(ctx, {
    email: "autousers-bench@example.com",
    password: "bench-password",
    teamName: "Autousers bench",
    plan: "enterprise",
    scopes: ["*"],
  });
  const actor: Actor = { userId, boundTeamId: teamId, principal: "api_key" };
  const autouserId = newId("autouser");
  await db.insert(autousers).values({
    id: autouserId,
    teamId,
    name: "Bench shopper",
    role: "Shopper",
    persona: {
      description: "Buys tea online.",
      goals: ["Buy tea"],
      traits: [],
      expertise: "intermediate",
      accessibilityNeeds: [],
      device: { kind: "desktop", viewport: { width: 1280, height: 800 }, network: "fast" },
    },
  });
  const site = await startSite();
  const waker = new RunEventWaker(db);
  // The worker's own browser, held here too so the idle browser can be measured without the context the warm-up
  // run left for later runs.
  const agentBrowser = launchAgentBrowser({ chromiumPath: env.chromiumPath });
  const loop = autouserRunLoop(
    { db, env, clock: systemClock, runWaker: waker },
    { browser: () => agentBrowser },
  );
  try {
    const evaluation = await createEvaluation(
      ctx,
      actor,
      EvaluationCreateInput.parse({
        name: "Bench",
        type: "SSE",
        status: "Running",
        designUrls: [{ url: site.url }],
      }),
    );
    if (!("id" in evaluation)) throw new Error("bench evaluation not created");

    // Warm-up: the browser launches once.
    await runAutousers(ctx, actor, { id: evaluation.id, autouserIds: [autouserId], agentCount: 1 });
    await loop.run();
    await (await agentBrowser).trim();
    const idle = browserMemoryKb();

    // The runs are queued before the stream is read: a stream that finds none queued or running ends at once, and
    // the warm-up run's events, read from the log after the fact, say nothing about the wake-up.
    await runAutousers(ctx, actor, { id: evaluation.id, autouserIds: [autouserId], agentCount: RUNS });
    const latencies: number[] = [];
    const reader = (async () => {
      const stream = streamRunEvents(ctx, actor, evaluation.id, { waker });
      for await (const e of stream) {
        const at = (e.data as { at?: string }).at;
        if (at && e.event !== "queued") {
          const ms = Date.now() - Date.parse(at);
          latencies.push(ms);
          if (process.env.BENCH_TRACE) log(`stream ${e.event} ${ms} ms`);
        }
      }
    })();
    const phases = new Map<string, { ms: number; count: number }>();
    const onPhase = (message: unknown) => {
      const { phase, ms } = message as RunPhase;
      const p = phases.get(phase) ?? { ms: 0, count: 0 };
      p.ms += ms;
      p.count++;
      phases.set(phase, p);
      if (process.env.BENCH_TRACE) log(`phase ${phase} ${ms.toFixed(0)} ms`);
    };
    subscribe(RUN_PHASE_CHANNEL, onPhase);
    const peak = { ...idle };
    const sampler = setInterval(() => {
      const now = browserMemoryKb();
      peak.rss = Math.max(peak.rss, now.rss);
      if (now.pss > peak.pss) {
        peak.pss = now.pss;
        peak.byType = now.byType;
      }
    }, 250);
    const cpuBefore = cpuSeconds();
    const started = performance.now();
    log(`autousers: ${RUNS} runs, concurrency ${env.autouserConcurrency}`);
    await loop.run();
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuSeconds();
    clearInterval(sampler);
    unsubscribe(RUN_PHASE_CHANNEL, onPhase);
    await reader;
    const perMinute = (RUNS / seconds) * 60;
    const perContext = (kb: number) => kb / 1024 / env.autouserConcurrency;
    const sorted = latencies.sort((a, b) => a - b);
    const p50 = percentile(sorted, 0.5);
    const p99 = percentile(sorted, 0.99);

    // Where a run's time goes: each phase's mean per run. Runs overlap (the concurrency), so the phases of
    // one run add up to more than the wall time per run.
    log(
      `autousers: ${seconds.toFixed(1)} s wall, ${((seconds * 1000) / RUNS).toFixed(0)} ms per run; ` +
        `idle browser ${(idle.rss / 1024).toFixed(0)} MB RSS / ${(idle.pss / 1024).toFixed(0)} MB PSS`,
    );
    const byType = (m: typeof idle.byType) =>
      [...m.entries()]
        .sort((a, b) => b[1].pss - a[1].pss)
        .map(([type, e]) => `${type} ${(e.pss / 1024).toFixed(0)} MB (${e.count})`)
        .join(", ");
    log(`autousers: PSS by process at the peak: ${byType(peak.byType)}; idle: ${byType(idle.byType)}`);
    const nodeCpuMs = ((cpuAfter.node - cpuBefore.node) * 1000) / RUNS;
    const browserCpuMs = ((cpuAfter.browser - cpuBefore.browser) * 1000) / RUNS;
    log(
      `autousers: CPU per run ${(nodeCpuMs + browserCpuMs).toFixed(0)} ms (worker ${nodeCpuMs.toFixed(0)} ms, ` +
        `Chromium ${browserCpuMs.toFixed(0)} ms), load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(" ")}`,
    );
    const phaseFigures: Figure[] = [];
    for (const [phase, p] of [...phases.entries()].sort((a, b) => b[1].ms - a[1].ms)) {
      log(`  ${phase.padEnd(20)} ${(p.ms / RUNS).toFixed(1).padStart(8)} ms/run  (${p.count}×)`);
      phaseFigures.push(info(`time per run: ${phase}`, p.ms / RUNS, "ms"));
    }
    const [shots] = await db
      .select({
        count: sql<number>`count(*)`.mapWith(Number),
        bytes: sql<number>`coalesce(sum(${files.size}), 0)`.mapWith(Number),
        type: sql<string>`string_agg(distinct ${files.contentType}, ',')`,
      })
      .from(files)
      .where(eq(files.evaluationId, evaluation.id));
    const runsIncludingWarmUp = RUNS + 1;
    log(
      `autousers: screenshots ${shots!.type ?? "none"}, ${(shots!.count / runsIncludingWarmUp).toFixed(2)} per run, ` +
        `${(shots!.bytes / Math.max(1, shots!.count) / 1024).toFixed(1)} kB each`,
    );
    return [
      atLeast(
        "single-comparison runs per minute (one worker)",
        perMinute,
        "runs/min",
        TARGET_RUNS_PER_MINUTE,
      ),
      atMost(
        "browser memory per context, peak (PSS)",
        perContext(peak.pss - idle.pss),
        "MB",
        TARGET_CONTEXT_MB,
      ),
      info("browser memory per context, peak (RSS)", perContext(peak.rss - idle.rss), "MB"),
      info("event → stream latency p50", p50, "ms"),
      below("event → stream latency p99", p99, "ms", TARGET_STREAM_P99_MS),
      info("CPU per run, worker and Chromium", nodeCpuMs + browserCpuMs, "ms"),
      info("CPU per run, worker (this process)", nodeCpuMs, "ms"),
      info("CPU per run, Chromium", browserCpuMs, "ms"),
      info("load average (1 min) at the end", loadavg()[0]!, ""),
      info("screenshots per run", shots!.count / runsIncludingWarmUp, "files"),
      info("screenshot size", shots!.bytes / Math.max(1, shots!.count) / 1024, "kB"),
      ...phaseFigures,
    ];
  } finally {
    loop.close?.();
    await (await agentBrowser.catch(() => null))?.close();
    await waker.close();
    await new Promise<void>((resolve) => site.server.close(() => resolve()));
  }
}
