import type { Evaluation } from "@rubricon/contracts";
import {
  autouserRuns,
  comparisons,
  type DbOrTx,
  evaluationShares,
  evaluations,
  ratings,
  templates,
} from "@rubricon/db";
import { and, count, eq, inArray, isNull, lte, ne, notExists, sql } from "drizzle-orm";
import { notify } from "../../identity";
import type { CoreContext } from "../../kernel";
import { emitEvent } from "../../platform";
import { loadStatsTally, overallAgreementOfTally } from "../results/aggregate";
import { countComparisons } from "./comparisons";
import { type EvaluationRow, type TemplateRefs, toEvaluation, toEvaluationEventObject } from "./serialize";

/** Name and current version of each template the given evaluations use, in one query. */
export async function templateRefs(db: DbOrTx, rows: EvaluationRow[]): Promise<TemplateRefs> {
  const ids = [...new Set(rows.flatMap((r) => r.selectedDimensionIds))];
  if (ids.length === 0) return new Map();
  const found = await db
    .select({ id: templates.id, name: templates.name, version: templates.version })
    .from(templates)
    .where(inArray(templates.id, ids));
  return new Map(found.map((t) => [t.id, { name: t.name, version: t.version }]));
}

export async function serializeEvaluation(
  db: DbOrTx,
  ctx: CoreContext,
  row: EvaluationRow,
): Promise<Evaluation> {
  const counts = await countComparisons(db, [row.id]);
  return toEvaluation(row, counts.get(row.id) ?? 0, ctx.baseUrl, await templateRefs(db, [row]));
}

export interface CompletionSummary {
  ratingCount: number;
  autouserRatingCount: number;
  humanRatingCount: number;
  krippendorffAlpha: number | null;
  completedRunCount: number;
  failedRunCount: number;
}

/** What `evaluation.completed` reports. */
export async function completionSummary(tx: DbOrTx, row: EvaluationRow): Promise<CompletionSummary> {
  // Counts from Postgres, not every rating: an evaluation ends inside the transaction of its last rating.
  const tally = await loadStatsTally(tx, row);
  const [runs] = await tx
    .select({
      completed: sql<number>`count(*) filter (where ${autouserRuns.status} = 'completed')`.mapWith(Number),
      failed: sql<number>`count(*) filter (where ${autouserRuns.status} = 'failed')`.mapWith(Number),
    })
    .from(autouserRuns)
    .where(and(eq(autouserRuns.evaluationId, row.id), eq(autouserRuns.purpose, "evaluation")));
  return {
    ratingCount: tally.ratingCount,
    autouserRatingCount: tally.autouserRatingCount,
    humanRatingCount: tally.ratingCount - tally.autouserRatingCount,
    krippendorffAlpha: overallAgreementOfTally(tally).alpha,
    completedRunCount: runs?.completed ?? 0,
    failedRunCount: runs?.failed ?? 0,
  };
}

/** No autouser run of the evaluation is queued or running (the window sweep waits for them). */
export function noActiveRuns() {
  return notExists(
    sql`(select 1 from ${autouserRuns} where ${autouserRuns.evaluationId} = ${evaluations.id}
      and ${autouserRuns.purpose} = 'evaluation' and ${autouserRuns.status} in ('queued', 'running'))`,
  );
}

/**
 * Records a status change as events, in the caller's transaction: always `evaluation.status_changed`, and on
 * reaching Ended also `evaluation.completed` with the summary.
 */
export async function emitStatusChange(
  tx: DbOrTx,
  ctx: CoreContext,
  row: EvaluationRow,
  evaluation: Evaluation,
  previousStatus: EvaluationRow["status"],
): Promise<void> {
  const object = toEvaluationEventObject(evaluation);
  await emitEvent(tx, ctx, {
    type: "evaluation.status_changed",
    teamId: row.teamId,
    object: { ...object, previous_status: previousStatus },
  });
  if (row.status === "Ended") {
    await emitEvent(tx, ctx, {
      type: "evaluation.completed",
      teamId: row.teamId,
      object: { ...object, summary: await completionSummary(tx, row) },
    });
    await notifyOwnersOfEnd(tx, ctx, row);
  }
}

/** Tells the evaluation's owners (its creator and its OWNER shares) that it has ended. */
async function notifyOwnersOfEnd(tx: DbOrTx, ctx: CoreContext, row: EvaluationRow): Promise<void> {
  const owners = await tx
    .select({ userId: evaluationShares.userId })
    .from(evaluationShares)
    .where(and(eq(evaluationShares.evaluationId, row.id), eq(evaluationShares.permission, "OWNER")));
  const ids = new Set(owners.map((o) => o.userId));
  if (row.createdBy) ids.add(row.createdBy);
  for (const userId of ids) {
    await notify(
      tx,
      {
        userId,
        kind: "evaluation.ended",
        title: `"${row.name}" has ended`,
        body: "Its results are final.",
        data: { evaluationId: row.id },
        link: `${ctx.baseUrl}/evaluations/${row.id}/results`,
        email: true,
      },
      ctx.clock.now(),
    );
  }
}

/** Moves a Running evaluation (locked by the caller) to Ended and records it. */
export async function endEvaluation(
  tx: DbOrTx,
  ctx: CoreContext,
  row: EvaluationRow,
): Promise<EvaluationRow> {
  const now = ctx.clock.now();
  const [ended] = await tx
    .update(evaluations)
    .set({ status: "Ended", endedAt: now, updatedAt: now })
    .where(eq(evaluations.id, row.id))
    .returning();
  await emitStatusChange(tx, ctx, ended!, await serializeEvaluation(tx, ctx, ended!), row.status);
  return ended!;
}

export function deadlinePassed(row: EvaluationRow, now: Date): boolean {
  return row.ratingDeadline !== null && row.ratingDeadline.getTime() <= now.getTime();
}

/** Whether every comparison has reached the evaluation's target of human (non-skipped) ratings. */
export async function targetReached(tx: DbOrTx, row: EvaluationRow): Promise<boolean> {
  const target = row.targetRatingsPerComparison;
  if (target === null) return false;
  const humanRatings = tx
    .select({ n: count() })
    .from(ratings)
    .where(
      and(
        eq(ratings.comparisonId, comparisons.id),
        ne(ratings.raterType, "autouser"),
        isNull(ratings.skipReason),
      ),
    );
  const [result] = await tx
    .select({
      comparisons: count(),
      short: sql<number>`count(*) filter (where ${humanRatings} < ${target})`.mapWith(Number),
    })
    .from(comparisons)
    .where(eq(comparisons.evaluationId, row.id));
  return (result?.comparisons ?? 0) > 0 && result?.short === 0;
}

/**
 * Ends every Running evaluation whose rating deadline has passed and whose autouser runs have all ended (the
 * last run to end closes the others). Rows are claimed with SKIP LOCKED, so any
 * number of workers may sweep at once. Answers how many were ended.
 */
export async function closeDueEvaluations(ctx: CoreContext, batch = 50): Promise<number> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(evaluations)
      .where(and(eq(evaluations.status, "Running"), lte(evaluations.ratingDeadline, now), noActiveRuns()))
      .limit(batch)
      .for("update", { skipLocked: true });
    for (const row of due) await endEvaluation(tx, ctx, row);
    return due.length;
  });
}
