/**
 * Hooks the app's clients report through, installed only when metrics (`METRICS_PORT`) or traces
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`) are on: a process with neither runs its statements and commands untouched.
 */
import type { StatementObserver } from "@rubricon/db";
import type { Env } from "../config/env";
import { gaugeOnScrape, redisRoundTrips } from "./metrics";
import { endSpan, startDbSpan, startRedisSpan, tracingOn } from "./tracing";

/** Connections in the postgres.js pool of each process (`createDatabase`'s default). */
export const DB_POOL_SIZE = 10;

export function observabilityOn(env: Pick<Env, "metricsPort" | "metricsToken" | "otelEndpoint">): boolean {
  return env.metricsPort !== undefined || env.metricsToken !== undefined || env.otelEndpoint !== undefined;
}

const pool = { statements: 0, transactions: 0 };
let poolGauges = false;

/**
 * Postgres statements as spans, and the pool's use. A transaction holds one connection until it ends; a
 * statement outside one holds one while it runs. Past the pool's size, work waits for a connection (postgres.js
 * queues it, or pipelines it behind another statement on a busy connection).
 */
export function statementObserver(): StatementObserver {
  return {
    statement(text, inTransaction) {
      if (!inTransaction) pool.statements++;
      const span = startDbSpan(text);
      return (error) => {
        if (!inTransaction) pool.statements--;
        if (span) endSpan(span, error);
      };
    },
    transaction() {
      pool.transactions++;
      return () => {
        pool.transactions--;
      };
    },
  };
}

/** `rubricon_db_pool_connections_in_use` and `rubricon_db_pool_waiting`, read on scrape. */
export function registerPoolGauges(size = DB_POOL_SIZE): void {
  if (poolGauges) return;
  poolGauges = true;
  const busy = () => pool.statements + pool.transactions;
  gaugeOnScrape(
    "rubricon_db_pool_connections_in_use",
    "Postgres pool connections held by a statement or a transaction",
    [],
    (set) => set({}, Math.min(size, busy())),
  );
  gaugeOnScrape(
    "rubricon_db_pool_waiting",
    "Statements and transactions waiting for a Postgres pool connection",
    [],
    (set) => set({}, Math.max(0, busy() - size)),
  );
}

let redisOn = false;
/** Whether Redis round trips are timed (metrics or traces on). */
export function observeRedis(on: boolean): void {
  redisOn = on;
}

/** One Redis round trip, timed (histogram) and traced when either is on. */
export async function redisRoundTrip<T>(command: string, send: () => Promise<T>): Promise<T> {
  if (!redisOn && !tracingOn()) return send();
  const span = startRedisSpan(command);
  const started = performance.now();
  try {
    const result = await send();
    redisRoundTrips.observe({ command, outcome: "ok" }, (performance.now() - started) / 1000);
    if (span) endSpan(span);
    return result;
  } catch (err) {
    redisRoundTrips.observe({ command, outcome: "error" }, (performance.now() - started) / 1000);
    if (span) endSpan(span, err);
    throw err;
  }
}
