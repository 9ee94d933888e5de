/**
 * Prometheus metrics (prom-client) in a registry of the app's own. Per request the cost is one histogram observe
 * and, on errors, one counter increment: children with fixed labels are looked up once and kept.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

export const registry = new Registry();
let defaultsOn = false;

/** Process metrics (CPU, memory, heap, event-loop lag, GC), once per process. */
export function collectProcessMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ register: registry, prefix: "rubricon_" });
}

export const httpDuration = new Histogram({
  name: "rubricon_http_request_duration_seconds",
  help: "Time to answer an HTTP request, by method, route template and status class",
  labelNames: ["method", "route", "status_class"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const httpErrors = new Counter({
  name: "rubricon_http_errors_total",
  help: "Error responses by the envelope's code",
  labelNames: ["code"] as const,
  registers: [registry],
});

export const dependencyUp = new Gauge({
  name: "rubricon_dependency_up",
  help: "Whether each readiness check's dependency answered at its last probe (1) or not (0)",
  labelNames: ["dependency"] as const,
  registers: [registry],
});

export const rateLimitDecisions = new Counter({
  name: "rubricon_rate_limit_decisions_total",
  help: "Per-minute budget decisions: allowed, refused, logged (over the limit in log mode), store_failed",
  labelNames: ["decision"] as const,
  registers: [registry],
});
export const RATE_LIMIT = {
  allowed: rateLimitDecisions.labels("allowed"),
  refused: rateLimitDecisions.labels("refused"),
  logged: rateLimitDecisions.labels("logged"),
  storeFailed: rateLimitDecisions.labels("store_failed"),
};

export const idempotencyReplays = new Counter({
  name: "rubricon_idempotency_replays_total",
  help: "Requests answered from a stored Idempotency-Key outcome",
  registers: [registry],
});

/** A gauge read when Prometheus scrapes (queue depths, requests in flight). */
export function gaugeOnScrape(
  name: string,
  help: string,
  labelNames: string[],
  read: (set: (labels: Record<string, string>, value: number) => void) => Promise<void> | void,
): Gauge {
  return new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      await read((labels, value) => this.set(labels, value));
    },
  });
}

const STATUS_CLASS = ["1xx", "2xx", "3xx", "4xx", "5xx"];
export function statusClass(status: number): string {
  return STATUS_CLASS[Math.floor(status / 100) - 1] ?? "other";
}

export const redisRoundTrips = new Histogram({
  name: "rubricon_redis_round_trip_seconds",
  help: "Redis round trips (rate-limit window hits, readiness pings) by command and outcome",
  labelNames: ["command", "outcome"] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
  registers: [registry],
});

export const outboxLag = new Histogram({
  name: "rubricon_webhook_outbox_lag_seconds",
  help: "From an event's commit to the first attempt at delivering it",
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [registry],
});

export const runsFinished = new Counter({
  name: "rubricon_autouser_runs_finished_total",
  help: "Autouser runs settled by this process, by status, judge (llm or heuristic) and reason",
  labelNames: ["status", "judge", "reason"] as const,
  registers: [registry],
});

export const runDuration = new Histogram({
  name: "rubricon_autouser_run_duration_seconds",
  help: "From a run's claim to its settling, by status",
  labelNames: ["status"] as const,
  buckets: [1, 5, 10, 30, 60, 120, 240, 360, 600],
  registers: [registry],
});

export const modelTokens = new Counter({
  name: "rubricon_model_tokens_total",
  help: "Model tokens spent by autouser runs, by provider and direction (input or output)",
  labelNames: ["provider", "direction"] as const,
  registers: [registry],
});

export const modelCost = new Counter({
  name: "rubricon_model_cost_usd_total",
  help: "Estimated model cost of autouser runs in US dollars, by provider",
  labelNames: ["provider"] as const,
  registers: [registry],
});
