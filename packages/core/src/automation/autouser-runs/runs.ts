import type { AutouserStatus, PageQuery, RunAutousersInput } from "@rubricon/contracts";
import { autouserRuns, autouserRunTurns, evaluations } from "@rubricon/db";
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import type { FileStorage } from "../../evaluation";
import {
  ACTIVE_RUN_STATUSES,
  cancelRunRows,
  endEvaluationIfSettled,
  loadVisibleEvaluation,
  queueRequestOf,
  queueRuns,
  type RunRow,
  toAutouserRun,
  toTurn,
} from "../../evaluation";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, paginate } from "../../kernel";
import { runArtifacts } from "./artifacts";

/** `POST /evaluations/{id}/run-autousers`: queues the runs (202); workers take them from there. */
export async function runAutousers(ctx: CoreContext, actor: Actor, input: RunAutousersInput) {
  return ctx.db.transaction(async (tx) => {
    const row = await loadVisibleEvaluation(tx, actor, input.id, { forUpdate: true, need: "EDITOR" });
    const { runs } = await queueRuns(tx, ctx, row, queueRequestOf(input));
    return {
      object: "autouser_run_batch" as const,
      data: { runs: runs.map(toAutouserRun) },
      plannedRatings: runs.reduce((n, r) => n + r.comparisonIds.length, 0),
    };
  });
}

/** `POST /evaluations/{id}/stop-autousers`: cancels queued and running runs; workers stop within a heartbeat. */
export async function stopAutousers(
  ctx: CoreContext,
  actor: Actor,
  input: { id: string; runIds?: string[] },
) {
  await loadVisibleEvaluation(ctx.db, actor, input.id, { need: "EDITOR" });
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    // The evaluation first, then its runs: the lock order of every run write.
    await tx
      .select({ id: evaluations.id })
      .from(evaluations)
      .where(eq(evaluations.id, input.id))
      .for("no key update");
    const rows = await tx
      .select()
      .from(autouserRuns)
      .where(
        and(
          eq(autouserRuns.evaluationId, input.id),
          eq(autouserRuns.purpose, "evaluation"),
          input.runIds
            ? inArray(autouserRuns.id, input.runIds)
            : inArray(autouserRuns.status, [...ACTIVE_RUN_STATUSES]),
        ),
      )
      .orderBy(asc(autouserRuns.id))
      .for("no key update");
    const cancelled = await cancelRunRows(tx, rows, now, "Stopped on request.");
    if (cancelled.length > 0) await endEvaluationIfSettled(tx, ctx, input.id);
    const ids = new Set(cancelled.map((r) => r.id));
    const named = input.runIds ? [...new Set(input.runIds)] : rows.map((r) => r.id);
    return {
      object: "autouser_run_stop" as const,
      cancelled: named.filter((id) => ids.has(id)),
      notCancelled: named.filter((id) => !ids.has(id)),
    };
  });
}

export async function listRuns(ctx: CoreContext, actor: Actor, evaluationId: string, query: PageQuery) {
  await loadVisibleEvaluation(ctx.db, actor, evaluationId, { need: "VIEWER" });
  const page = await paginate<RunRow>({
    db: ctx.db,
    table: autouserRuns,
    resource: "autouser_run",
    where: and(eq(autouserRuns.evaluationId, evaluationId), eq(autouserRuns.purpose, "evaluation")),
    query,
  });
  return { ...page, data: page.data.map(toAutouserRun) };
}

async function loadRun(ctx: CoreContext, actor: Actor, evaluationId: string, runId: string): Promise<RunRow> {
  await loadVisibleEvaluation(ctx.db, actor, evaluationId, { need: "VIEWER" });
  const [row] = await ctx.db
    .select()
    .from(autouserRuns)
    .where(and(eq(autouserRuns.id, runId), eq(autouserRuns.evaluationId, evaluationId)))
    .limit(1);
  if (!row)
    throw ApiError.notFound("autouser_run_not_found", `No such run in evaluation ${evaluationId}: ${runId}.`);
  return row;
}

export async function getRun(ctx: CoreContext, actor: Actor, evaluationId: string, runId: string) {
  return toAutouserRun(await loadRun(ctx, actor, evaluationId, runId));
}

/** Every turn of every attempt of the run, in order; at most a run's worth (bounded by its time limit). */
export async function listTurns(ctx: CoreContext, actor: Actor, evaluationId: string, runId: string) {
  await loadRun(ctx, actor, evaluationId, runId);
  const rows = await ctx.db
    .select()
    .from(autouserRunTurns)
    .where(eq(autouserRunTurns.runId, runId))
    .orderBy(asc(autouserRunTurns.attempt), asc(autouserRunTurns.turn), asc(autouserRunTurns.createdAt))
    .limit(1000);
  return { object: "autouser_run_turns" as const, runId, data: rows.map(toTurn) };
}

export async function listArtifacts(
  ctx: CoreContext,
  actor: Actor,
  storage: FileStorage,
  evaluationId: string,
  runId: string,
) {
  const run = await loadRun(ctx, actor, evaluationId, runId);
  return {
    object: "run_artifacts" as const,
    runId: run.id,
    artifactsPath: run.artifactsPath,
    data: await runArtifacts(ctx.db, storage, run.id, ctx.clock),
  };
}

/** Counts per status, ratings made of those planned, and the time left at the pace so far. */
export async function runStatus(ctx: CoreContext, evaluationId: string): Promise<AutouserStatus> {
  const rows = await ctx.db
    .select()
    .from(autouserRuns)
    .where(and(eq(autouserRuns.evaluationId, evaluationId), eq(autouserRuns.purpose, "evaluation")))
    .orderBy(desc(autouserRuns.createdAt), desc(autouserRuns.id))
    .limit(500);
  const summary = { total: rows.length, queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
  let ratingsCreated = 0;
  let plannedRatings = 0;
  let firstStart: number | null = null;
  for (const r of rows) {
    summary[r.status]++;
    ratingsCreated += r.ratingsCreated;
    // A run that ended early will make no more ratings than it did.
    plannedRatings +=
      r.status === "failed" || r.status === "cancelled" ? r.ratingsCreated : r.comparisonIds.length;
    if (r.startedAt && (firstStart === null || r.startedAt.getTime() < firstStart))
      firstStart = r.startedAt.getTime();
  }
  const left = plannedRatings - ratingsCreated;
  const elapsed = firstStart === null ? 0 : (ctx.clock.now().getTime() - firstStart) / 1000;
  const estimatedSecondsLeft =
    left > 0 && ratingsCreated > 0 && elapsed > 0 ? Math.ceil((elapsed / ratingsCreated) * left) : null;
  return {
    object: "autouser_status",
    evaluationId,
    summary,
    ratingsCreated,
    plannedRatings,
    progress: plannedRatings === 0 ? 0 : Math.min(1, ratingsCreated / plannedRatings),
    estimatedSecondsLeft,
    runs: rows.map(toAutouserRun),
  };
}

export async function autouserStatus(ctx: CoreContext, actor: Actor, evaluationId: string) {
  await loadVisibleEvaluation(ctx.db, actor, evaluationId, { need: "VIEWER" });
  return runStatus(ctx, evaluationId);
}
