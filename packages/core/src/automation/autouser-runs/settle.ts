import { autouserRuns, type DbOrTx, evaluations } from "@rubricon/db";
import { and, eq } from "drizzle-orm";
import {
  appendRunEvent,
  endEvaluationIfSettled,
  type RunRow,
  toAutouserRun,
  toRunEventObject,
} from "../../evaluation";
import { notify } from "../../identity";
import { emitEvent, recordUsage } from "../../platform";
import { exhaustedRuns } from "./claim";
import { coreContextOf, RunLost, type RunStepDeps, withLease } from "./lease";

/**
 * Ends the run as completed (spending its ratings of the quota) or failed (spending nothing). Null when the run
 * is no longer this worker's: whoever holds it now settles it.
 */
export async function settle(
  deps: RunStepDeps,
  run: Pick<RunRow, "id" | "evaluationId">,
  token: string,
  status: "completed" | "failed",
  error: string | null,
): Promise<RunRow | null> {
  try {
    const row = await withLease(
      deps,
      run.id,
      token,
      (tx, owned) =>
        status === "completed" ? settleCompleted(deps, tx, owned) : settleFailed(deps, tx, owned, error!),
      // The evaluation first, then the run: the order rating writes and stops take too.
      { evaluationFirst: { id: run.evaluationId, lock: "lock" } },
    );
    deps.waker?.wake(row.evaluationId);
    return row;
  } catch (err) {
    if (err instanceof RunLost) return null;
    throw err;
  }
}

/** Runs whose last allowed worker died: failed, with the events and nothing spent. Answers how many. */
export async function failExhausted(deps: RunStepDeps, onFailed?: (run: RunRow) => void): Promise<number> {
  let failedRuns = 0;
  for (const id of await exhaustedRuns(deps.db, deps.clock.now(), 50)) {
    const failed = await deps.db.transaction(async (tx) => {
      const [row] = await tx
        .select()
        .from(autouserRuns)
        .where(and(eq(autouserRuns.id, id), eq(autouserRuns.status, "running")))
        .limit(1)
        .for("update", { skipLocked: true });
      if (!row?.leaseUntil || row.leaseUntil > deps.clock.now()) return null;
      return settleFailed(
        deps,
        tx,
        row,
        `The run's worker stopped responding ${row.attemptCount} times; it was given up.`,
      );
    });
    if (failed) {
      failedRuns++;
      deps.waker?.wake(failed.evaluationId);
      onFailed?.(failed);
    }
  }
  return failedRuns;
}

async function settleCompleted(deps: RunStepDeps, tx: DbOrTx, run: RunRow): Promise<RunRow> {
  const now = deps.clock.now();
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
  const ctx = coreContextOf(deps);
  await emitEvent(tx, ctx, {
    type: "autouser_run.completed",
    teamId: row!.teamId,
    object: toRunEventObject(row!),
  });
  await appendRunEvent(tx, row!.evaluationId, row!.id, "completed", { run: toAutouserRun(row!) }, now);
  if (row!.purpose === "evaluation") await endEvaluationIfSettled(tx, ctx, row!.evaluationId);
  return row!;
}

async function settleFailed(deps: RunStepDeps, tx: DbOrTx, run: RunRow, error: string): Promise<RunRow> {
  const now = deps.clock.now();
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
  const ctx = coreContextOf(deps);
  await emitEvent(tx, ctx, {
    type: "autouser_run.failed",
    teamId: row!.teamId,
    object: toRunEventObject(row!),
  });
  await notifyFailure(deps, tx, row!, now);
  await appendRunEvent(tx, row!.evaluationId, row!.id, "failed", { run: toAutouserRun(row!) }, now);
  if (row!.purpose === "evaluation") await endEvaluationIfSettled(tx, ctx, row!.evaluationId);
  return row!;
}

/** Whoever created the evaluation hears that a run failed (the bell, and email when mail is set up). */
async function notifyFailure(deps: RunStepDeps, tx: DbOrTx, run: RunRow, now: Date): Promise<void> {
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
      link: `${deps.baseUrl}/evaluations/${run.evaluationId}`,
      email: true,
    },
    now,
  );
}
