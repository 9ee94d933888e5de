import { setMaxListeners } from "node:events";
import {
  type ActionPlanner,
  type AgentBrowser,
  type Judge,
  type ModelConfig,
  timedPhase,
} from "@rubricon/agents";
import type { Db } from "@rubricon/db";
import type { FileStorage, RunEventWaker } from "../../evaluation";
import type { PlatformModel } from "../../identity";
import type { Clock } from "../../kernel";
import { randomToken } from "../../kernel";
import { claimRuns } from "./claim";
import { executeRun, type RunExecution } from "./execute";
import type { RunObserver } from "./observer";
import { failExhausted } from "./settle";

export type { RunEndReason, RunObserver, RunSettled } from "./observer";

export const RUN_LIMITS = {
  pageTimeoutMs: 30_000,
  runTimeoutMs: 6 * 60_000,
  leaseMs: 30_000,
  heartbeatMs: 2_000,
  maxActionsPerPage: 4,
};

export interface RunEngineOptions {
  db: Db;
  clock: Clock;
  baseUrl: string;
  encryptionKey: string;
  platformModel: PlatformModel | null;
  /** The process's browser, launched on first use. */
  browser(): Promise<AgentBrowser>;
  /** The judge for a team's model; null config means the heuristic judge. */
  judgeFor(config: ModelConfig | null): Judge;
  /** The agent's planner for a model; none means look, then rate. */
  plannerFor?(config: ModelConfig): ActionPlanner | null;
  /** Where screenshots are kept, as `artifact` files of the run's evaluation. */
  storage: FileStorage;
  isAllowedUrl(url: string): Promise<boolean>;
  /** Runs this process drives at once. */
  concurrency: number;
  pageTimeoutMs?: number;
  runTimeoutMs?: number;
  leaseMs?: number;
  heartbeatMs?: number;
  maxActionsPerPage?: number;
  waker?: RunEventWaker;
  /** Within a pass, how long to wait before looking for more work. */
  pollMs?: number;
  /** Told of each turn's model use and each settled run (metrics, logs). */
  observer?: RunObserver;
}

export interface RunPassResult {
  completed: number;
  failed: number;
  lost: number;
  errors: string[];
}

/**
 * Drives autouser runs: claims them with leases and carries each out (`executeRun`: lease, execute, record turn,
 * record rating, settle, one file each). Any number of these share the queue, in any number of processes.
 */
export class AutouserRunEngine {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly run: RunExecution;

  constructor(private readonly opts: RunEngineOptions) {
    this.run = {
      ...opts,
      pageTimeoutMs: opts.pageTimeoutMs ?? RUN_LIMITS.pageTimeoutMs,
      runTimeoutMs: opts.runTimeoutMs ?? RUN_LIMITS.runTimeoutMs,
      leaseMs: opts.leaseMs ?? RUN_LIMITS.leaseMs,
      heartbeatMs: opts.heartbeatMs ?? RUN_LIMITS.heartbeatMs,
      maxActionsPerPage: opts.maxActionsPerPage ?? RUN_LIMITS.maxActionsPerPage,
    };
  }

  /** Runs currently held (leased) by this engine. */
  get held(): number {
    return this.inFlight.size;
  }

  /**
   * One pass: claims runs while there is room and work, until nothing is due and nothing is in flight. `signal`
   * stops it: runs in flight are handed back to the queue (their next worker starts them afresh).
   */
  async runPass(signal?: AbortSignal): Promise<RunPassResult> {
    const result: RunPassResult = { completed: 0, failed: 0, lost: 0, errors: [] };
    if (signal) setMaxListeners(this.opts.concurrency * 4 + 16, signal);
    result.failed += await failExhausted(this.run, (failed) =>
      this.opts.observer?.settled({
        runId: failed.id,
        evaluationId: failed.evaluationId,
        status: "failed",
        judge: "unknown",
        reason: "worker_lost",
        durationMs: null,
      }),
    );
    const pollMs = this.opts.pollMs ?? 100;
    while (!signal?.aborted) {
      const room = this.opts.concurrency - this.inFlight.size;
      const claimed =
        room > 0
          ? await timedPhase("claim", () =>
              claimRuns(this.opts.db, this.opts.clock.now(), this.run.leaseMs, randomToken(12), room),
            )
          : [];
      for (const run of claimed) {
        const task = executeRun(this.run, run, signal)
          .then((outcome) => {
            result[outcome]++;
          })
          .catch((err: unknown) => {
            result.errors.push(`${run.id}: ${err instanceof Error ? err.message : String(err)}`);
          })
          .finally(() => this.inFlight.delete(run.id));
        this.inFlight.set(run.id, task);
      }
      if (this.inFlight.size === 0) break;
      await Promise.race([...this.inFlight.values(), sleep(pollMs)]);
    }
    await Promise.allSettled(this.inFlight.values());
    return result;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
