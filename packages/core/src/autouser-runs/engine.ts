import { setMaxListeners } from "node:events";
import { context, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  type ActionPlanner,
  type AgentBrowser,
  type AgentPage,
  type CredentialSource,
  HEURISTIC_MODEL,
  type Judge,
  JudgeError,
  type JudgeResult,
  type ModelConfig,
  runComparison,
  type TurnRecord,
} from "@rubricon/agents";
import { SXS_PREFERENCE_MAX, SXS_PREFERENCE_MIN } from "@rubricon/contracts";
import {
  autouserRuns,
  autouserRunTurns,
  type Db,
  type DbOrTx,
  evaluations,
  newId,
  ratings,
} from "@rubricon/db";
import { and, eq, sql } from "drizzle-orm";
import { type PlatformModel, resolveModelConfig } from "../byok/resolve";
import { emitEvent } from "../events/emit";
import { signedFileUrl, storeGeneratedFile } from "../files/files";
import type { FileStorage } from "../files/storage/file-storage";
import { notify } from "../notifications/notify";
import { toRating } from "../ratings/serialize";
import type { Clock } from "../shared/clock";
import type { CoreContext } from "../shared/context";
import { randomToken } from "../shared/crypto";
import { recordUsage } from "../usage/usage";
import { artifactsPathOf } from "./artifacts";
import { claimRuns, exhaustedRuns } from "./claim";
import { loadRunContext, type RunContext, taskOf } from "./context";
import { endEvaluationIfSettled } from "./finish";
import { appendRunEvent, type RunEventWaker } from "./log";
import { type RunRow, toAutouserRun, toRunEventObject, toTurn } from "./serialize";

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

/** Why a run ended, in a few fixed words (a metric label): never the message itself. */
export type RunEndReason =
  | "ok"
  | "timeout"
  | "worker_lost"
  | "judge_invalid_reply"
  | "judge_provider_auth"
  | "judge_provider_rate_limited"
  | "judge_provider_error"
  | "judge_timeout"
  | "error";

export interface RunSettled {
  runId: string;
  evaluationId: string;
  status: "completed" | "failed";
  /** `llm` or `heuristic`; `unknown` when the run ended before its judge was chosen. */
  judge: "llm" | "heuristic" | "unknown";
  reason: RunEndReason;
  /** From the claim to the settling; null for runs given up after their workers died. */
  durationMs: number | null;
}

export interface RunObserver {
  /** A turn's model use: `provider` is the team's model's provider, or `heuristic`. */
  turn(provider: string, usage: { inputTokens: number; outputTokens: number; costUsd: number }): void;
  settled(run: RunSettled): void;
}

const tracer = trace.getTracer("rubricon");

/** The worker lost the run (stopped, cancelled, or taken over): nothing more is written for it. */
class RunLost extends Error {
  constructor(readonly why: "cancelled" | "lease_lost" | "shutdown") {
    super(`run ${why}`);
  }
}

class RunTimedOut extends Error {}

export interface RunPassResult {
  completed: number;
  failed: number;
  lost: number;
  errors: string[];
}

/**
 * Drives autouser runs: claims them with leases, keeps the lease alive while a browser works, records every turn
 * and rating as it happens, and settles the run. Any number of these share the queue, in any number of processes.
 */
export class AutouserRunEngine {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly o: Required<
    Pick<
      RunEngineOptions,
      "pageTimeoutMs" | "runTimeoutMs" | "leaseMs" | "heartbeatMs" | "maxActionsPerPage" | "pollMs"
    >
  >;

  constructor(private readonly opts: RunEngineOptions) {
    this.o = {
      pageTimeoutMs: opts.pageTimeoutMs ?? RUN_LIMITS.pageTimeoutMs,
      runTimeoutMs: opts.runTimeoutMs ?? RUN_LIMITS.runTimeoutMs,
      leaseMs: opts.leaseMs ?? RUN_LIMITS.leaseMs,
      heartbeatMs: opts.heartbeatMs ?? RUN_LIMITS.heartbeatMs,
      maxActionsPerPage: opts.maxActionsPerPage ?? RUN_LIMITS.maxActionsPerPage,
      pollMs: opts.pollMs ?? 100,
    };
  }

  private get ctx(): CoreContext {
    return { db: this.opts.db, clock: this.opts.clock, baseUrl: this.opts.baseUrl };
  }

  /**
   * One pass: claims runs while there is room and work, until nothing is due and nothing is in flight. `signal`
   * stops it: runs in flight are handed back to the queue (their next worker starts them afresh).
   */
  async runPass(signal?: AbortSignal): Promise<RunPassResult> {
    const result: RunPassResult = { completed: 0, failed: 0, lost: 0, errors: [] };
    if (signal) setMaxListeners(this.opts.concurrency * 4 + 16, signal);
    await this.failExhausted(result);
    while (!signal?.aborted) {
      const room = this.opts.concurrency - this.inFlight.size;
      const claimed =
        room > 0
          ? await claimRuns(this.opts.db, this.opts.clock.now(), this.o.leaseMs, randomToken(12), room)
          : [];
      for (const run of claimed) {
        const task = this.execute(run, result, signal)
          .catch((err: unknown) => {
            result.errors.push(`${run.id}: ${err instanceof Error ? err.message : String(err)}`);
          })
          .finally(() => this.inFlight.delete(run.id));
        this.inFlight.set(run.id, task);
      }
      if (this.inFlight.size === 0) break;
      await Promise.race([...this.inFlight.values(), sleep(this.o.pollMs)]);
    }
    await Promise.allSettled(this.inFlight.values());
    return result;
  }

  /** Runs whose last allowed worker died: failed, with the events and nothing spent. */
  private async failExhausted(result: RunPassResult): Promise<void> {
    for (const id of await exhaustedRuns(this.opts.db, this.opts.clock.now(), 50)) {
      const failed = await this.opts.db.transaction(async (tx) => {
        const [row] = await tx
          .select()
          .from(autouserRuns)
          .where(and(eq(autouserRuns.id, id), eq(autouserRuns.status, "running")))
          .limit(1)
          .for("update", { skipLocked: true });
        if (!row?.leaseUntil || row.leaseUntil > this.opts.clock.now()) return null;
        return this.settleFailed(
          tx,
          row,
          `The run's worker stopped responding ${row.attemptCount} times; it was given up.`,
        );
      });
      if (failed) {
        result.failed++;
        this.opts.waker?.wake(failed.evaluationId);
        this.opts.observer?.settled({
          runId: failed.id,
          evaluationId: failed.evaluationId,
          status: "failed",
          judge: "unknown",
          reason: "worker_lost",
          durationMs: null,
        });
      }
    }
  }

  /** Runs currently held (leased) by this engine. */
  get held(): number {
    return this.inFlight.size;
  }

  /** One run as one span (its turns are events on it; model calls made during it are its children). */
  private execute(claimed: RunRow, result: RunPassResult, outer?: AbortSignal): Promise<void> {
    const span = tracer.startSpan("autouser.run", {
      attributes: {
        "rubricon.run.id": claimed.id,
        "rubricon.evaluation.id": claimed.evaluationId,
        "rubricon.run.attempt": claimed.attemptCount,
      },
    });
    return context
      .with(trace.setSpan(context.active(), span), () => this.drive(claimed, result, span, outer))
      .finally(() => span.end());
  }

  private async drive(
    claimed: RunRow,
    result: RunPassResult,
    span: Span,
    outer?: AbortSignal,
  ): Promise<void> {
    const started = performance.now();
    let judgeKind: RunSettled["judge"] = "unknown";
    let provider = "heuristic";
    const settledAs = (status: RunSettled["status"], reason: RunEndReason) => {
      span.setAttributes({ "rubricon.run.status": status, "rubricon.run.reason": reason });
      if (status === "failed") span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
      this.opts.observer?.settled({
        runId: claimed.id,
        evaluationId: claimed.evaluationId,
        status,
        judge: judgeKind,
        reason,
        durationMs: performance.now() - started,
      });
    };
    const token = claimed.leaseToken!;
    const controller = new AbortController();
    const signal = controller.signal;
    setMaxListeners(64, signal);
    const onOuterAbort = () => controller.abort(new RunLost("shutdown"));
    outer?.addEventListener("abort", onOuterAbort, { once: true });
    const timeout = setTimeout(
      () => controller.abort(new RunTimedOut(`The run took longer than ${this.o.runTimeoutMs / 1000} s.`)),
      this.o.runTimeoutMs,
    );
    const heartbeat = setInterval(() => {
      void this.heartbeat(claimed.id, token).then(
        (state) => {
          if (state !== "ok") controller.abort(new RunLost(state));
        },
        () => {},
      );
    }, this.o.heartbeatMs);
    let page: AgentPage | null = null;
    try {
      const ctx = await loadRunContext(this.opts.db, claimed);
      if (!ctx) throw new Error("The autouser or the evaluation no longer exists.");
      const config = await resolveModelConfig(this.opts.db, claimed.teamId, {
        encryptionKey: this.opts.encryptionKey,
        platform: this.opts.platformModel,
      });
      const judge = this.opts.judgeFor(config);
      judgeKind = judge.kind;
      if (judge.kind === "llm" && config) provider = config.provider;
      span.setAttribute("rubricon.run.judge", judge.kind);
      const planner = config && this.opts.plannerFor ? this.opts.plannerFor(config) : null;
      const source: CredentialSource = judge.kind === "heuristic" || !config ? "heuristic" : config.source;
      const run = await this.start(claimed, token, ctx, source, config);
      const browser = await this.opts.browser();
      page = await browser.open({
        device: ctx.persona.device,
        pageTimeoutMs: this.o.pageTimeoutMs,
        signal,
        isAllowedUrl: this.opts.isAllowedUrl,
      });
      const rated = await this.ratedComparisons(run);
      let turn = await this.lastTurn(run.id, run.attemptCount);
      for (const comparison of ctx.comparisons) {
        if (rated.has(comparison.id)) continue;
        if (signal.aborted) throw signal.reason;
        const task = await taskOf(comparison.stimulus, (fileId) =>
          signedFileUrl(this.opts.db, this.opts.storage, fileId, {
            teamId: run.teamId,
            clock: this.opts.clock,
          }),
        );
        if (!task) {
          turn++;
          await this.recordTurn(run, token, turn, comparison.id, {
            side: null,
            action: { type: "done", reason: "no address" },
            detail: "skipped: the comparison has no web address or ready file to visit",
            url: null,
            screenshot: null,
            usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
            latencyMs: 0,
          });
          continue;
        }
        const judged = await runComparison({
          page,
          judge,
          planner,
          persona: ctx.persona,
          instructions: ctx.evaluation.instructions,
          scenario: ctx.evaluation.scenario,
          templates: ctx.templates,
          task,
          maxActions: this.o.maxActionsPerPage,
          signal,
          onTurn: async (record) => {
            turn++;
            span.addEvent("turn", {
              turn,
              action: record.action.type,
              "gen_ai.usage.input_tokens": record.usage.inputTokens,
              "gen_ai.usage.output_tokens": record.usage.outputTokens,
              latency_ms: record.latencyMs,
            });
            this.opts.observer?.turn(provider, record.usage);
            await this.recordTurn(run, token, turn, comparison.id, record);
          },
        });
        await this.recordRating(run, token, ctx, comparison.id, judged);
      }
      await page.close().catch(() => {});
      page = null;
      await this.settle(run.id, token, "completed", null);
      result.completed++;
      settledAs("completed", "ok");
    } catch (err) {
      const reason = signal.aborted ? signal.reason : err;
      if (reason instanceof RunLost) {
        if (reason.why === "shutdown") await this.release(claimed.id, token).catch(() => {});
        result.lost++;
        span.setAttribute("rubricon.run.status", reason.why);
        return;
      }
      const settled = await this.settle(claimed.id, token, "failed", failureMessage(reason));
      if (settled) {
        result.failed++;
        settledAs("failed", endReason(reason));
      } else result.lost++;
    } finally {
      clearTimeout(timeout);
      clearInterval(heartbeat);
      outer?.removeEventListener("abort", onOuterAbort);
      if (page) await page.close().catch(() => {});
    }
  }

  /** Extends the lease; answers why not when the run is no longer this worker's. */
  private async heartbeat(runId: string, token: string): Promise<"ok" | "cancelled" | "lease_lost"> {
    const now = this.opts.clock.now();
    const [row] = await this.opts.db
      .update(autouserRuns)
      .set({ leaseUntil: new Date(now.getTime() + this.o.leaseMs), heartbeatAt: now })
      .where(
        and(
          eq(autouserRuns.id, runId),
          eq(autouserRuns.leaseToken, token),
          eq(autouserRuns.status, "running"),
        ),
      )
      .returning({ id: autouserRuns.id });
    if (row) return "ok";
    const [current] = await this.opts.db
      .select({ status: autouserRuns.status })
      .from(autouserRuns)
      .where(eq(autouserRuns.id, runId))
      .limit(1);
    return current?.status === "cancelled" ? "cancelled" : "lease_lost";
  }

  /** The run row, locked, if this worker still holds it; else the run is lost to it. */
  private async own(tx: DbOrTx, runId: string, token: string): Promise<RunRow> {
    const [row] = await tx
      .select()
      .from(autouserRuns)
      .where(eq(autouserRuns.id, runId))
      .limit(1)
      .for("no key update");
    if (row?.status !== "running" || row.leaseToken !== token) {
      throw new RunLost(row?.status === "cancelled" ? "cancelled" : "lease_lost");
    }
    return row;
  }

  private async start(
    claimed: RunRow,
    token: string,
    ctx: RunContext,
    source: CredentialSource,
    config: ModelConfig | null,
  ): Promise<RunRow> {
    const now = this.opts.clock.now();
    const run = await this.opts.db.transaction(async (tx) => {
      await this.own(tx, claimed.id, token);
      const [row] = await tx
        .update(autouserRuns)
        .set({
          credentialSource: source,
          model: source === "heuristic" ? HEURISTIC_MODEL : `${config!.provider}/${config!.model}`,
          rubricVersion: ctx.rubricVersion,
          artifactsPath: artifactsPathOf(claimed.evaluationId, claimed.id),
          updatedAt: now,
        })
        .where(eq(autouserRuns.id, claimed.id))
        .returning();
      await appendRunEvent(
        tx,
        row!.evaluationId,
        row!.id,
        "started",
        { run: toAutouserRun(row!), attempt: row!.attemptCount },
        now,
      );
      return row!;
    });
    this.opts.waker?.wake(run.evaluationId);
    return run;
  }

  private async ratedComparisons(run: RunRow): Promise<Set<string>> {
    if (run.purpose === "calibration") {
      const rows = await this.opts.db
        .select({ comparisonId: autouserRunTurns.comparisonId })
        .from(autouserRunTurns)
        .where(and(eq(autouserRunTurns.runId, run.id), sql`${autouserRunTurns.action}->>'type' = 'verdict'`));
      return new Set(rows.flatMap((r) => (r.comparisonId ? [r.comparisonId] : [])));
    }
    const rows = await this.opts.db
      .select({ comparisonId: ratings.comparisonId })
      .from(ratings)
      .where(eq(ratings.autouserRunId, run.id));
    return new Set(rows.map((r) => r.comparisonId));
  }

  private async lastTurn(runId: string, attempt: number): Promise<number> {
    const [row] = await this.opts.db
      .select({ n: sql<number>`coalesce(max(${autouserRunTurns.turn}), 0)`.mapWith(Number) })
      .from(autouserRunTurns)
      .where(and(eq(autouserRunTurns.runId, runId), eq(autouserRunTurns.attempt, attempt)));
    return row?.n ?? 0;
  }

  private async recordTurn(
    run: RunRow,
    token: string,
    turn: number,
    comparisonId: string,
    record: TurnRecord,
  ): Promise<void> {
    let screenshot: string | null = null;
    let screenshotFileId: string | null = null;
    if (record.screenshot) {
      screenshot = `turn-${run.attemptCount}-${turn}.png`;
      // Kept as an `artifact` file of the evaluation, in the same storage as uploads and removed with it.
      const file = await storeGeneratedFile(
        this.opts.db,
        this.opts.storage,
        {
          teamId: run.teamId,
          evaluationId: run.evaluationId,
          filename: screenshot,
          contentType: "image/png",
          bytes: record.screenshot,
          kind: "artifact",
        },
        this.opts.clock,
      );
      screenshotFileId = file.id;
    }
    const now = this.opts.clock.now();
    await this.opts.db.transaction(async (tx) => {
      await this.own(tx, run.id, token);
      const [inserted] = await tx
        .insert(autouserRunTurns)
        .values({
          id: newId("autouserRunTurn"),
          runId: run.id,
          attempt: run.attemptCount,
          turn,
          comparisonId,
          side: record.side,
          action: record.action as Record<string, unknown>,
          detail: record.detail.slice(0, 2000),
          url: record.url,
          screenshot,
          screenshotFileId,
          inputTokens: record.usage.inputTokens,
          outputTokens: record.usage.outputTokens,
          latencyMs: record.latencyMs,
          costUsd: record.usage.costUsd,
          createdAt: now,
        })
        .returning();
      await tx
        .update(autouserRuns)
        .set({
          inputTokens: sql`${autouserRuns.inputTokens} + ${record.usage.inputTokens}`,
          outputTokens: sql`${autouserRuns.outputTokens} + ${record.usage.outputTokens}`,
          estimatedCostUsd: sql`${autouserRuns.estimatedCostUsd} + ${record.usage.costUsd}`,
          leaseUntil: new Date(now.getTime() + this.o.leaseMs),
          heartbeatAt: now,
          updatedAt: now,
        })
        .where(eq(autouserRuns.id, run.id));
      await appendRunEvent(
        tx,
        run.evaluationId,
        run.id,
        "turn",
        { runId: run.id, turn: toTurn(inserted!) },
        now,
      );
    });
    this.opts.waker?.wake(run.evaluationId);
  }

  /**
   * Stores the judge's verdict as the run's rating of the comparison. The rating's rater key is the run, so the
   * unique index allows one rating per run and comparison: a run taken over after a crash never rates twice.
   */
  private async recordRating(
    run: RunRow,
    token: string,
    ctx: RunContext,
    comparisonId: string,
    judged: JudgeResult,
  ): Promise<void> {
    const dimensionRatings = clampRatings(ctx, judged.ratings);
    const now = this.opts.clock.now();
    await this.opts.db.transaction(async (tx) => {
      if (run.purpose === "calibration") {
        await this.own(tx, run.id, token);
        await tx
          .update(autouserRuns)
          .set({ ratingsCreated: sql`${autouserRuns.ratingsCreated} + 1`, updatedAt: now })
          .where(eq(autouserRuns.id, run.id));
        await tx.insert(autouserRunTurns).values({
          id: newId("autouserRunTurn"),
          runId: run.id,
          attempt: run.attemptCount,
          turn: 0,
          comparisonId,
          action: { type: "verdict", ratings: dimensionRatings },
          detail: judged.justification.slice(0, 2000),
          createdAt: now,
        });
        return;
      }
      // Locks in the order every rating write uses: the evaluation, then the run.
      const [evaluation] = await tx
        .update(evaluations)
        .set({ ratingsRevision: sql`${evaluations.ratingsRevision} + 1` })
        .where(eq(evaluations.id, run.evaluationId))
        .returning();
      await this.own(tx, run.id, token);
      if (evaluation?.status !== "Running") throw new RunLost("cancelled");
      const [inserted] = await tx
        .insert(ratings)
        .values({
          id: newId("rating"),
          evaluationId: run.evaluationId,
          comparisonId,
          teamId: run.teamId,
          raterType: "autouser",
          autouserId: run.autouserId,
          autouserRunId: run.id,
          rubricVersion: run.rubricVersion,
          singleRaterKey: run.id,
          dimensionRatings,
          templateVersions: Object.fromEntries(ctx.templates.map((t) => [t.id, t.version])),
          openTextResponses: {},
          factors: [],
          justification: judged.justification.slice(0, 5000),
          timeSpentSeconds: null,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing()
        .returning();
      if (!inserted) return;
      const rating = toRating(inserted);
      await emitEvent(tx, this.ctx, {
        type: "rating.created",
        teamId: run.teamId,
        object: { ...rating, rubricVersion: run.rubricVersion, judge: judged.judge, model: judged.model },
      });
      await tx
        .update(autouserRuns)
        .set({ ratingsCreated: sql`${autouserRuns.ratingsCreated} + 1`, updatedAt: now })
        .where(eq(autouserRuns.id, run.id));
      await appendRunEvent(tx, run.evaluationId, run.id, "rating", { runId: run.id, rating }, now);
    });
    this.opts.waker?.wake(run.evaluationId);
  }

  /** Ends the run as completed (spending its ratings of the quota) or failed (spending nothing). */
  private async settle(
    runId: string,
    token: string,
    status: "completed" | "failed",
    error: string | null,
  ): Promise<RunRow | null> {
    try {
      const row = await this.opts.db.transaction(async (tx) => {
        const [run] = await tx.select().from(autouserRuns).where(eq(autouserRuns.id, runId)).limit(1);
        if (!run) return null;
        // The evaluation first, then the run: the order rating writes and stops take too.
        await tx
          .select({ id: evaluations.id })
          .from(evaluations)
          .where(eq(evaluations.id, run.evaluationId))
          .for("no key update");
        const owned = await this.own(tx, runId, token);
        return status === "completed"
          ? this.settleCompleted(tx, owned)
          : this.settleFailed(tx, owned, error!);
      });
      if (row) this.opts.waker?.wake(row.evaluationId);
      return row;
    } catch (err) {
      if (err instanceof RunLost) return null;
      throw err;
    }
  }

  private async settleCompleted(tx: DbOrTx, run: RunRow): Promise<RunRow> {
    const now = this.opts.clock.now();
    const [row] = await tx
      .update(autouserRuns)
      .set({ status: "completed", completedAt: now, updatedAt: now, leaseToken: null, leaseUntil: null })
      .where(eq(autouserRuns.id, run.id))
      .returning();
    if (row!.ratingsCreated > 0) {
      await recordUsage(tx, row!.teamId, "autouser_ratings_mo", now, row!.ratingsCreated, {
        allowOver: true,
      });
    }
    await emitEvent(tx, this.ctx, {
      type: "autouser_run.completed",
      teamId: row!.teamId,
      object: toRunEventObject(row!),
    });
    await appendRunEvent(tx, row!.evaluationId, row!.id, "completed", { run: toAutouserRun(row!) }, now);
    if (row!.purpose === "evaluation") await endEvaluationIfSettled(tx, this.ctx, row!.evaluationId);
    return row!;
  }

  private async settleFailed(tx: DbOrTx, run: RunRow, error: string): Promise<RunRow> {
    const now = this.opts.clock.now();
    const [row] = await tx
      .update(autouserRuns)
      .set({
        status: "failed",
        error: error.slice(0, 1000),
        completedAt: now,
        updatedAt: now,
        leaseToken: null,
        leaseUntil: null,
      })
      .where(eq(autouserRuns.id, run.id))
      .returning();
    await emitEvent(tx, this.ctx, {
      type: "autouser_run.failed",
      teamId: row!.teamId,
      object: toRunEventObject(row!),
    });
    await this.notifyFailure(tx, row!, now);
    await appendRunEvent(tx, row!.evaluationId, row!.id, "failed", { run: toAutouserRun(row!) }, now);
    if (row!.purpose === "evaluation") await endEvaluationIfSettled(tx, this.ctx, row!.evaluationId);
    return row!;
  }

  /** Whoever created the evaluation hears that a run failed (the bell, and email when mail is set up). */
  private async notifyFailure(tx: DbOrTx, run: RunRow, now: Date): Promise<void> {
    const [evaluation] = await tx
      .select({ name: evaluations.name, createdBy: evaluations.createdBy })
      .from(evaluations)
      .where(eq(evaluations.id, run.evaluationId))
      .limit(1);
    if (!evaluation?.createdBy) return;
    await notify(
      tx,
      {
        userId: evaluation.createdBy,
        kind: "autouser_run.failed",
        title: `An autouser run on "${evaluation.name}" failed`,
        body: run.error,
        data: { evaluationId: run.evaluationId, runId: run.id, autouserId: run.autouserId },
        link: `${this.opts.baseUrl}/evaluations/${run.evaluationId}`,
        email: true,
      },
      now,
    );
  }

  /** A stopping worker hands its run back: the next worker takes it at once, on the same attempt count. */
  private async release(runId: string, token: string): Promise<void> {
    await this.opts.db
      .update(autouserRuns)
      .set({
        status: "queued",
        leaseToken: null,
        leaseUntil: null,
        attemptCount: sql`greatest(${autouserRuns.attemptCount} - 1, 0)`,
      })
      .where(
        and(
          eq(autouserRuns.id, runId),
          eq(autouserRuns.leaseToken, token),
          eq(autouserRuns.status, "running"),
        ),
      );
  }
}

/** Judges answer integers in range; anything else is brought into the template's scale. */
function clampRatings(ctx: RunContext, raw: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of ctx.templates) {
    const [min, max] =
      ctx.evaluation.type === "SSE" ? [t.scaleMin, t.scaleMax] : [SXS_PREFERENCE_MIN, SXS_PREFERENCE_MAX];
    const value = raw[t.id];
    const n =
      typeof value === "number" && Number.isFinite(value) ? Math.round(value) : Math.round((min + max) / 2);
    out[t.id] = Math.min(max, Math.max(min, n));
  }
  return out;
}

function endReason(err: unknown): RunEndReason {
  if (err instanceof RunTimedOut) return "timeout";
  if (err instanceof JudgeError) return `judge_${err.code}`;
  return "error";
}

/** What a failed run shows: safe to store and return (never a key or a stack). */
function failureMessage(err: unknown): string {
  if (err instanceof RunTimedOut) return err.message;
  if (err instanceof JudgeError) return `The judge failed (${err.code}): ${err.message}`;
  if (err instanceof Error) {
    const first = err.message.split("\n")[0]!.trim();
    return first.length > 0 ? first.slice(0, 500) : "The run failed.";
  }
  return "The run failed.";
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
