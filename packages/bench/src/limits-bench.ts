/**
 * The limits part of `pnpm bench`: what the per-minute limiter adds to a request. In process: hits per second
 * and memory per counted request. With Redis: the round trip a request waits for, beside a bare PING, the hits
 * per second with many requests in flight, and Redis memory per counted request. In the app: the time of a whole
 * API request (GET /evaluations/{id}, handled in process on Postgres) with the in-process and the Redis window
 * against a window that counts nothing, in interleaved rounds so load elsewhere on the machine hits all alike.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import {
  createRubricon,
  loadEnv,
  MemorySlidingWindow,
  RedisSlidingWindow,
  type SlidingWindow,
} from "@rubricon/api";
import { atMost, type Figure, info } from "./figures";
import { createBenchDatabase, DEFAULT_ADMIN_URL, seed } from "./seed";

const MINUTE = 60_000;
const TEAMS = 1000;
const RPM = 600;
const IN_PROCESS_HITS = 2_000_000;
const REDIS_SEQUENTIAL = 5000;
const REDIS_CONCURRENT = 50_000;
const IN_FLIGHT = 32;
const TARGET_IN_PROCESS_US = 2;
const TARGET_REDIS_P50_US = 500;
const APP_ROUNDS = 7;
const APP_REQUESTS_PER_ROUND = 300;

export interface LimitsBenchRow {
  measure: string;
  value: string;
  target: string;
  pass: boolean | null;
  /** The numbers the row shows, for results/limits.json. */
  figures: Figure[];
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

function collectGarbage(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

function inProcess(rows: LimitsBenchRow[]): void {
  const window = new MemorySlidingWindow();
  const t0 = Date.now();
  // 1,000 teams at 20,000 requests a second in all: the clock moves 50 µs a request.
  const run = (n: number) => {
    for (let i = 0; i < n; i++) {
      window.hitSync({
        key: `rpm:team:${i % TEAMS}`,
        limit: RPM,
        windowMs: MINUTE,
        nowMs: t0 + i / 20,
        id: "x",
      });
    }
  };
  run(200_000);
  const start = performance.now();
  run(IN_PROCESS_HITS);
  const seconds = (performance.now() - start) / 1000;
  const perHitUs = (seconds * 1e6) / IN_PROCESS_HITS;
  rows.push({
    measure: `in-process hit (${TEAMS} teams, ${RPM}/min each)`,
    value: `${Math.round(IN_PROCESS_HITS / seconds).toLocaleString("en")} hits/s, ${perHitUs.toFixed(2)} µs/hit`,
    target: `≤ ${TARGET_IN_PROCESS_US} µs`,
    pass: perHitUs <= TARGET_IN_PROCESS_US,
    figures: [
      info("in-process hits per second", IN_PROCESS_HITS / seconds, "hits/s"),
      atMost("in-process time per hit", perHitUs, "µs", TARGET_IN_PROCESS_US),
    ],
  });

  const gc = collectGarbage();
  gc();
  const before = process.memoryUsage().heapUsed;
  const full = new MemorySlidingWindow();
  const counted = 100 * RPM;
  for (let i = 0; i < counted; i++) {
    full.hitSync({ key: `rpm:team:${i % 100}`, limit: RPM, windowMs: MINUTE, nowMs: t0 + i, id: "x" });
  }
  gc();
  const bytes = (process.memoryUsage().heapUsed - before) / counted;
  rows.push({
    measure: "in-process memory per counted request",
    value: `${bytes.toFixed(1)} bytes (a full Free team: ${((bytes * 60) / 1024).toFixed(1)} KiB)`,
    target: "",
    pass: null,
    figures: [info("in-process memory per counted request", bytes, "bytes")],
  });
  if (full.size !== 100) throw new Error("the memory sample lost keys");
}

async function withRedis(rows: LimitsBenchRow[], url: string, log: (m: string) => void): Promise<void> {
  let window: RedisSlidingWindow;
  try {
    window = await RedisSlidingWindow.connect(url, `rubricon-bench:${randomUUID()}:`);
  } catch (err) {
    log(`Redis rows skipped: ${(err as Error).message}`);
    return;
  }
  const { redis } = window;
  try {
    const t0 = Date.now();
    const hit = (i: number) =>
      window.hit({
        key: `rpm:team:${i % TEAMS}`,
        limit: RPM,
        windowMs: MINUTE,
        nowMs: t0 + i,
        id: randomUUID(),
      });
    for (let i = 0; i < 500; i++) await hit(i);

    const timings = async (fn: (i: number) => Promise<unknown>) => {
      const us: number[] = [];
      for (let i = 0; i < REDIS_SEQUENTIAL; i++) {
        const start = performance.now();
        await fn(i);
        us.push((performance.now() - start) * 1000);
      }
      return us.sort((a, b) => a - b);
    };
    const ping = await timings(() => redis.ping());
    const hits = await timings((i) => hit(1000 + i));
    const p50 = percentile(hits, 0.5);
    rows.push({
      measure: "Redis PING round trip (baseline)",
      value: `p50 ${percentile(ping, 0.5).toFixed(0)} µs, p99 ${percentile(ping, 0.99).toFixed(0)} µs`,
      target: "",
      pass: null,
      figures: [
        info("Redis PING round trip p50", percentile(ping, 0.5), "µs"),
        info("Redis PING round trip p99", percentile(ping, 0.99), "µs"),
      ],
    });
    rows.push({
      measure: "Redis hit round trip (what a request waits)",
      value: `p50 ${p50.toFixed(0)} µs, p99 ${percentile(hits, 0.99).toFixed(0)} µs`,
      target: `p50 ≤ ${TARGET_REDIS_P50_US} µs`,
      pass: p50 <= TARGET_REDIS_P50_US,
      figures: [
        atMost("Redis hit round trip p50", p50, "µs", TARGET_REDIS_P50_US),
        info("Redis hit round trip p99", percentile(hits, 0.99), "µs"),
      ],
    });

    let next = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < REDIS_CONCURRENT) await hit(10_000 + next++);
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    rows.push({
      measure: `Redis hits, ${IN_FLIGHT} in flight`,
      value: `${Math.round(REDIS_CONCURRENT / seconds).toLocaleString("en")} hits/s`,
      target: "",
      pass: null,
      figures: [info(`Redis hits, ${IN_FLIGHT} in flight`, REDIS_CONCURRENT / seconds, "hits/s")],
    });

    const key = `rubricon-bench:${randomUUID()}:rl:full`;
    const members = Array.from({ length: RPM }, (_, i) => [t0 + i, randomUUID()] as const).flat();
    await redis.zadd(key, ...members);
    const usage = Number(await redis.call("MEMORY", "USAGE", key));
    await redis.del(key);
    rows.push({
      measure: "Redis memory per counted request",
      value: `${(usage / RPM).toFixed(1)} bytes (a full Pro team: ${(usage / 1024).toFixed(1)} KiB)`,
      target: "",
      pass: null,
      figures: [info("Redis memory per counted request", usage / RPM, "bytes")],
    });
  } finally {
    await window.close();
  }
}

/** A window that always has room and remembers nothing: the app without a limiter's cost. */
const noWindow: SlidingWindow = {
  hit: async ({ limit, nowMs, windowMs }) => ({
    allowed: true,
    limit,
    remaining: limit,
    resetMs: nowMs + windowMs,
  }),
  close: async () => {},
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function inApp(rows: LimitsBenchRow[], redisUrl: string, log: (m: string) => void): Promise<void> {
  let bench: Awaited<ReturnType<typeof createBenchDatabase>>;
  try {
    bench = await createBenchDatabase(process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL);
  } catch (err) {
    log(`in-app rows skipped (no Postgres): ${(err as Error).message}`);
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), "rubricon-limits-bench-"));
  let redis: RedisSlidingWindow | null = null;
  try {
    const baseUrl = "http://127.0.0.1:1";
    const seeded = await seed(bench.database, 20, baseUrl);
    const env = loadEnv({
      NODE_ENV: "development",
      DATA_DIR: dataDir,
      BASE_URL: baseUrl,
      DATABASE_URL: bench.url,
    });
    const app = await createRubricon({ env, database: bench.database });
    redis = await RedisSlidingWindow.connect(redisUrl, `rubricon-bench:${randomUUID()}:`).catch(() => null);
    const variants: [string, SlidingWindow][] = [
      ["no window", noWindow],
      ["in-process window", new MemorySlidingWindow()],
      ...(redis ? ([["Redis window", redis]] as [string, SlidingWindow][]) : []),
    ];
    const url = `${baseUrl}/api/v1/evaluations/${seeded.evaluationIds[0]}`;
    const headers = { authorization: `Bearer ${seeded.apiKey}` };
    const perRequestUs = new Map<string, number[]>(variants.map(([name]) => [name, []]));
    for (let round = 0; round <= APP_ROUNDS; round++) {
      for (const [name, window] of variants) {
        app.services.limits.window = window;
        const start = performance.now();
        for (let i = 0; i < APP_REQUESTS_PER_ROUND; i++) {
          const res = await app.handle(new Request(url, { headers }));
          if (res.status !== 200) throw new Error(`${name}: GET answered ${res.status}`);
          await res.arrayBuffer();
        }
        // Round 0 warms every variant up and is not counted.
        if (round > 0)
          perRequestUs.get(name)!.push(((performance.now() - start) * 1000) / APP_REQUESTS_PER_ROUND);
      }
    }
    const base = median(perRequestUs.get("no window")!);
    for (const [name] of variants) {
      const us = median(perRequestUs.get(name)!);
      rows.push({
        measure: `app request, ${name}`,
        value:
          name === "no window"
            ? `${us.toFixed(0)} µs per request`
            : `${us.toFixed(0)} µs per request (${us - base >= 0 ? "+" : ""}${(us - base).toFixed(0)} µs)`,
        target: "",
        pass: null,
        figures: [info(`app request, ${name}`, us, "µs")],
      });
    }
  } finally {
    await redis?.close();
    await bench.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchLimits(log: (m: string) => void): Promise<LimitsBenchRow[]> {
  const rows: LimitsBenchRow[] = [];
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  log("limits: in-process window");
  inProcess(rows);
  log("limits: Redis window");
  await withRedis(rows, redisUrl, log);
  log("limits: whole requests in the app");
  await inApp(rows, redisUrl, log);
  return rows;
}

export function printLimitsRows(rows: LimitsBenchRow[]): void {
  const header = ["limiter", "measured", "target", ""];
  const body = rows.map((r) => [
    r.measure,
    r.value,
    r.target,
    r.pass === null ? "" : r.pass ? "pass" : "FAIL",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ");
  process.stdout.write(
    `${[line(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n")}\n`,
  );
}
