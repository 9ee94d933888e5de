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
  type ModelConfig,
  PageError,
  runComparison,
  timedPhase,
} from "@rubricon/agents";
import { autouserRuns, autouserRunTurns, ratings } from "@rubricon/db";
import { and, eq, sql } from "drizzle-orm";
import { appendRunEvent, type RunRow, signedFileUrl, toAutouserRun } from "../../evaluation";
import { type PlatformModel, resolveModelConfig } from "../../identity";
import { artifactsPathOf } from "./artifacts";
import { loadRunContext, type RunContext, taskOf } from "./context";
import { heartbeat, RunLost, type RunStepDeps, release, withLease } from "./lease";
import type { RunEndReason, RunObserver, RunSettled } from "./observer";
import { recordRating } from "./record-rating";
import { recordTurn } from "./record-turn";
import { settle } from "./settle";

/** How one run is carried out: the step dependencies, the browser and judges, and its time limits. */
export interface RunExecution extends RunStepDeps {
  encryptionKey: string;
  platformModel: PlatformModel | null;
  browser(): Promise<AgentBrowser>;
  judgeFor(config: ModelConfig | null): Judge;
  plannerFor?(config: ModelConfig): ActionPlanner | null;
  isAllowedUrl(url: string): Promise<boolean>;
  pageTimeoutMs: number;
  runTimeoutMs: number;
  heartbeatMs: number;
  maxActionsPerPage: number;
  observer?: RunObserver;
}

export type RunOutcome = "completed" | "failed" | "lost";

class RunTimedOut extends Error {}

const tracer = trace.getTracer("rubricon");

/**
 * Carries out one claimed run: a heartbeat keeps its lease while the browser visits each comparison not yet
 * rated, every turn and rating is recorded as it happens, and the run is settled. Each write passes the lease
 * gate once (`withLease`); losing the lease, a cancel or `outer` aborting stops the run where it is.
 */
export function executeRun(o: RunExecution, claimed: RunRow, outer?: AbortSignal): Promise<RunOutcome> {
  // One run is one span: its turns are events on it, model calls made during it are its children.
  const span = tracer.startSpan("autouser.run", {
    attributes: {
      "rubricon.run.id": claimed.id,
      "rubricon.evaluation.id": claimed.evaluationId,
      "rubricon.run.attempt": claimed.attemptCount,
    },
  });
  return context
    .with(trace.setSpan(context.active(), span), () => drive(o, claimed, span, outer))
    .finally(() => span.end());
}

async function drive(o: RunExecution, claimed: RunRow, span: Span, outer?: AbortSignal): Promise<RunOutcome> {
  const started = performance.now();
  let judgeKind: RunSettled["judge"] = "unknown";
  let provider = "heuristic";
  const settledAs = (status: RunSettled["status"], reason: RunEndReason) => {
    span.setAttributes({ "rubricon.run.status": status, "rubricon.run.reason": reason });
    if (status === "failed") span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
    o.observer?.settled({
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
    () => controller.abort(new RunTimedOut(`The run took longer than ${o.runTimeoutMs / 1000} s.`)),
    o.runTimeoutMs,
  );
  const beat = setInterval(() => {
    void heartbeat(o, claimed.id, token).then(
      (state) => {
        if (state !== "ok") controller.abort(new RunLost(state));
      },
      () => {},
    );
  }, o.heartbeatMs);
  let page: AgentPage | null = null;
  try {
    const ctx = await timedPhase("load", () => loadRunContext(o.db, claimed));
    if (!ctx) throw new Error("The autouser or the evaluation no longer exists.");
    const config = await timedPhase("load", () =>
      resolveModelConfig(o.db, claimed.teamId, {
        encryptionKey: o.encryptionKey,
        platform: o.platformModel,
      }),
    );
    const judge = o.judgeFor(config);
    judgeKind = judge.kind;
    if (judge.kind === "llm" && config) provider = config.provider;
    span.setAttribute("rubricon.run.judge", judge.kind);
    const planner = config && o.plannerFor ? o.plannerFor(config) : null;
    const source: CredentialSource = judge.kind === "heuristic" || !config ? "heuristic" : config.source;
    const run = await timedPhase("write.start", () => start(o, claimed, token, ctx, source, config));
    const browser = await timedPhase("browser", () => o.browser());
    page = await timedPhase("context.open", () =>
      browser.open({
        device: ctx.persona.device,
        pageTimeoutMs: o.pageTimeoutMs,
        signal,
        isAllowedUrl: o.isAllowedUrl,
        // A context may serve another run of the same team once cleared, never a run of another team.
        partition: claimed.teamId,
      }),
    );
    const rated = await timedPhase("load", () => ratedComparisons(o, run));
    let turn = await timedPhase("load", () => lastTurn(o, run.id, run.attemptCount));
    for (const comparison of ctx.comparisons) {
      if (rated.has(comparison.id)) continue;
      if (signal.aborted) throw signal.reason;
      const task = await taskOf(comparison.stimulus, (fileId) =>
        signedFileUrl(o.db, o.storage, fileId, { teamId: run.teamId, clock: o.clock }),
      );
      if (!task) {
        turn++;
        await recordTurn(o, run, token, turn, comparison.id, {
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
      let judged: Awaited<ReturnType<typeof runComparison>>;
      try {
        judged = await runComparison({
          page,
          judge,
          planner,
          persona: ctx.persona,
          instructions: ctx.evaluation.instructions,
          scenario: ctx.evaluation.scenario,
          templates: ctx.templates,
          task,
          maxActions: o.maxActionsPerPage,
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
            o.observer?.turn(provider, record.usage);
            await timedPhase("write.turn", () => recordTurn(o, run, token, turn, comparison.id, record));
          },
        });
      } catch (err) {
        // A comparison whose page cannot be reached at all is skipped with its reason, as a person skips one;
        // the run's other comparisons are still rated. A cancelled run or a judge failure still ends the run.
        if (!(err instanceof PageError) || err.code === "aborted" || signal.aborted) throw err;
        turn++;
        await recordTurn(o, run, token, turn, comparison.id, {
          side: null,
          action: { type: "done", reason: "page unavailable" },
          detail: `skipped: ${err.message}`,
          url: null,
          screenshot: null,
          usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
          latencyMs: 0,
        });
        continue;
      }
      await timedPhase("write.rating", () => recordRating(o, run, token, ctx, comparison.id, judged));
    }
    await timedPhase("context.close", () => page!.close().catch(() => {}));
    page = null;
    await timedPhase("write.settle", () => settle(o, run, token, "completed", null));
    settledAs("completed", "ok");
    return "completed";
  } catch (err) {
    const reason = signal.aborted ? signal.reason : err;
    if (reason instanceof RunLost) {
      if (reason.why === "shutdown") await release(o, claimed.id, token).catch(() => {});
      span.setAttribute("rubricon.run.status", reason.why);
      return "lost";
    }
    const settled = await settle(o, claimed, token, "failed", failureMessage(reason));
    if (!settled) return "lost";
    settledAs("failed", endReason(reason));
    return "failed";
  } finally {
    clearTimeout(timeout);
    clearInterval(beat);
    outer?.removeEventListener("abort", onOuterAbort);
    if (page) await page.close().catch(() => {});
  }
}

/** Marks the run as started by this attempt: its model, rubric version and artifacts folder. */
async function start(
  o: RunExecution,
  claimed: RunRow,
  token: string,
  ctx: RunContext,
  source: CredentialSource,
  config: ModelConfig | null,
): Promise<RunRow> {
  const now = o.clock.now();
  const run = await withLease(o, claimed.id, token, async (tx) => {
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
  o.waker?.wake(run.evaluationId);
  return run;
}

/** Comparisons an earlier attempt of the run already rated: a taken-over run goes on from there. */
async function ratedComparisons(o: RunExecution, run: RunRow): Promise<Set<string>> {
  if (run.purpose === "calibration") {
    const rows = await o.db
      .select({ comparisonId: autouserRunTurns.comparisonId })
      .from(autouserRunTurns)
      .where(and(eq(autouserRunTurns.runId, run.id), sql`${autouserRunTurns.action}->>'type' = 'verdict'`));
    return new Set(rows.flatMap((r) => (r.comparisonId ? [r.comparisonId] : [])));
  }
  const rows = await o.db
    .select({ comparisonId: ratings.comparisonId })
    .from(ratings)
    .where(eq(ratings.autouserRunId, run.id));
  return new Set(rows.map((r) => r.comparisonId));
}

async function lastTurn(o: RunExecution, runId: string, attempt: number): Promise<number> {
  const [row] = await o.db
    .select({ n: sql<number>`coalesce(max(${autouserRunTurns.turn}), 0)`.mapWith(Number) })
    .from(autouserRunTurns)
    .where(and(eq(autouserRunTurns.runId, runId), eq(autouserRunTurns.attempt, attempt)));
  return row?.n ?? 0;
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
