import { autouserRuns, type DbOrTx, evaluations } from "@rubricon/db";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { CoreContext } from "../../kernel";
import { deadlinePassed, endEvaluation, targetReached } from "../evaluations/lifecycle";
import { ACTIVE_RUN_STATUSES } from "./queue";

export async function hasActiveRuns(tx: DbOrTx, evaluationId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: autouserRuns.id })
    .from(autouserRuns)
    .where(
      and(
        eq(autouserRuns.evaluationId, evaluationId),
        eq(autouserRuns.purpose, "evaluation"),
        inArray(autouserRuns.status, [...ACTIVE_RUN_STATUSES]),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/**
 * After a run ends: the evaluation ends too once no run is queued or running and the human rating window is
 * closed (its deadline passed, its target reached, or no human window at all because only autousers rate).
 */
export async function endEvaluationIfSettled(
  tx: DbOrTx,
  ctx: CoreContext,
  evaluationId: string,
): Promise<boolean> {
  const [row] = await tx
    .select()
    .from(evaluations)
    .where(eq(evaluations.id, evaluationId))
    .limit(1)
    .for("update");
  if (row?.status !== "Running") return false;
  if (await hasActiveRuns(tx, evaluationId)) return false;
  const [runs] = await tx
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(autouserRuns)
    .where(and(eq(autouserRuns.evaluationId, evaluationId), eq(autouserRuns.purpose, "evaluation")));
  if ((runs?.n ?? 0) === 0) return false;
  const windowClosed =
    row.evaluationMethod === "ai" || deadlinePassed(row, ctx.clock.now()) || (await targetReached(tx, row));
  if (!windowClosed) return false;
  await endEvaluation(tx, ctx, row);
  return true;
}
