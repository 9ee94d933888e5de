import type { SharePermission } from "@rubricon/contracts";
import { type DbOrTx, evaluations } from "@rubricon/db";
import { eq, sql } from "drizzle-orm";
import type { Actor } from "../../kernel";
import { ApiError } from "../../kernel";
import { evaluationNotFound, loadEvaluationAccess } from "../evaluations/access";
import { deadlinePassed } from "../evaluations/lifecycle";
import type { EvaluationRow } from "../evaluations/serialize";
import { evaluationForRating } from "./statements";

export function notRunning(row: EvaluationRow): ApiError {
  const why =
    row.status === "Draft"
      ? "is a Draft; start it (status Running) before rating"
      : `has ${row.status === "Ended" ? "ended" : "been archived"} and is read-only`;
  return new ApiError("evaluation_not_running", `Evaluation ${row.id} ${why}.`);
}

/**
 * Locks the evaluation for a change to its ratings and bumps its ratings revision (which invalidates cached
 * results). Deletes take this exclusive lock; new ratings share the row (see `lockForRating`).
 */
export async function lockForRatingChange(tx: DbOrTx, evaluationId: string): Promise<EvaluationRow> {
  const [row] = await tx
    .update(evaluations)
    .set({ ratingsRevision: sql`${evaluations.ratingsRevision} + 1` })
    .where(eq(evaluations.id, evaluationId))
    .returning();
  if (!row) throw evaluationNotFound(evaluationId);
  return row;
}

/**
 * Takes the evaluation for one new rating. Shared (`FOR SHARE`): raters of one evaluation proceed side by side,
 * while any change to the evaluation (its status, its window) waits for them and they for it, so no rating lands
 * after the evaluation ended. One rating per rater is kept by the unique index, not by this lock. Exclusive (as a
 * delete takes it) when the rating may end the evaluation: the one that reaches the target must see every other.
 */
export async function lockForRating(
  tx: DbOrTx,
  evaluationId: string,
  exclusive: boolean,
  access: PendingAccess | undefined,
): Promise<EvaluationRow> {
  if (exclusive) {
    // Checked before the exclusive lock, so a caller without access never holds up the evaluation's raters.
    if (access) await loadEvaluationAccess(tx, access.actor, evaluationId, { need: access.need });
    return lockForRatingChange(tx, evaluationId);
  }
  if (access) {
    return (await loadEvaluationAccess(tx, access.actor, evaluationId, { need: access.need, forShare: true }))
      .row;
  }
  const [row] = await evaluationForRating(tx, { id: evaluationId });
  if (!row) throw evaluationNotFound(evaluationId);
  return row;
}

/** Thrown inside a shared-lock attempt that finds the rating may end the evaluation; the attempt is retried. */
export class NeedsExclusiveLock extends Error {}

export function mayEnd(row: EvaluationRow, now: Date): boolean {
  return row.targetRatingsPerComparison !== null || deadlinePassed(row, now);
}

/**
 * The access a rating's caller still has to be granted, checked with the rating's lock in the same statement
 * (`before` is then an earlier read of the evaluation, whose access says nothing of this caller's). `seen` gets the
 * row each granted lock finds.
 */
export interface PendingAccess {
  actor: Actor;
  need: SharePermission;
  seen?: (row: EvaluationRow) => void;
}
