import type { PageQuery, RaterType, Rating, RatingSubmission } from "@rubricon/contracts";
import { ratings } from "@rubricon/db";
import { and, eq, inArray } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, paginate, recordTombstone } from "../../kernel";
import { loadVisibleEvaluation } from "../evaluations/access";
import type { EvaluationRow } from "../evaluations/serialize";
import { lockForRatingChange, notRunning } from "./locks";
import { type RatingRow, toRating } from "./serialize";
import { type Rater, submitRating } from "./submit";

export type { PendingAccess } from "./locks";
export { type Rater, submitRating } from "./submit";

/**
 * Evaluations this process saw a rating lock lately, by id, the most recent last: the `before` of the next rating
 * of each, whose caller's access and the evaluation's state are then checked under that rating's lock, in the
 * lock's statement, instead of by a read of their own on another connection first. A row kept here is only ever
 * a starting guess: the lock's row decides, and a stale guess costs at most the retry with the exclusive lock.
 */
const recentlyRated = new Map<string, EvaluationRow>();
const RECENTLY_RATED_CAP = 512;

function rememberRated(row: EvaluationRow): void {
  recentlyRated.delete(row.id);
  recentlyRated.set(row.id, row);
  if (recentlyRated.size > RECENTLY_RATED_CAP) recentlyRated.delete(recentlyRated.keys().next().value!);
}

/** `POST /evaluations/{id}/ratings`: a team member (or their key) rates as themselves. */
export async function createRating(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  input: RatingSubmission,
): Promise<Rating> {
  const rater: Rater = { type: "user", userId: actor.userId };
  const known = recentlyRated.get(evaluationId);
  if (known) return submitRating(ctx, known, rater, input, { actor, need: "EDITOR", seen: rememberRated });
  const row = await loadVisibleEvaluation(ctx.db, actor, evaluationId, { need: "EDITOR" });
  rememberRated(row);
  return submitRating(ctx, row, rater, input);
}

export async function listRatings(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  query: PageQuery & { comparisonId?: string; raterType?: RaterType },
) {
  await loadVisibleEvaluation(ctx.db, actor, evaluationId, { need: "VIEWER" });
  const page = await paginate<RatingRow>({
    db: ctx.db,
    table: ratings,
    resource: "rating",
    where: and(
      eq(ratings.evaluationId, evaluationId),
      query.comparisonId ? eq(ratings.comparisonId, query.comparisonId) : undefined,
      query.raterType ? eq(ratings.raterType, query.raterType) : undefined,
    ),
    query,
  });
  return { ...page, data: page.data.map(toRating) };
}

export async function getRating(ctx: CoreContext, actor: Actor, evaluationId: string, ratingId: string) {
  await loadVisibleEvaluation(ctx.db, actor, evaluationId, { need: "VIEWER" });
  const [row] = await ctx.db
    .select()
    .from(ratings)
    .where(and(eq(ratings.id, ratingId), eq(ratings.evaluationId, evaluationId)))
    .limit(1);
  if (!row) throw ApiError.notFound("rating_not_found", `No such rating: ${ratingId}.`);
  return toRating(row);
}

/** Deletes the given ratings of a Running evaluation; ids that are not its ratings are reported, not fatal. */
export async function bulkDeleteRatings(ctx: CoreContext, actor: Actor, evaluationId: string, ids: string[]) {
  await loadVisibleEvaluation(ctx.db, actor, evaluationId);
  return ctx.db.transaction(async (tx) => {
    const row = await lockForRatingChange(tx, evaluationId);
    if (row.status !== "Running") throw notRunning(row);
    const unique = [...new Set(ids)];
    const found = await tx
      .select({ id: ratings.id })
      .from(ratings)
      .where(and(eq(ratings.evaluationId, evaluationId), inArray(ratings.id, unique)));
    const deleted = new Set(found.map((r) => r.id));
    if (deleted.size > 0) {
      await recordTombstone(tx, ratings, "rating", [...deleted]);
      await tx.delete(ratings).where(inArray(ratings.id, [...deleted]));
    }
    return {
      object: "rating_bulk_delete" as const,
      deleted: unique.filter((id) => deleted.has(id)),
      notFound: unique.filter((id) => !deleted.has(id)),
    };
  });
}
