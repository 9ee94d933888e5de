import {
  comparisons,
  type DbOrTx,
  evaluationRatingRevisions,
  evaluations,
  hotStatement,
  type Params,
  ratings,
} from "@rubricon/db";
import { and, eq, sql } from "drizzle-orm";
import { REVISION_SHARDS } from "../results/cache";

// Every new rating runs these: hot statements, built once (building one costs about as much as running it).

export const evaluationForRating = hotStatement("evaluation_for_rating", (db, $: Params<{ id: string }>) =>
  db.select().from(evaluations).where(eq(evaluations.id, $.id)).for("share"),
);

export const comparisonOfEvaluation = hotStatement(
  "comparison_of_evaluation",
  (db, $: Params<{ id: string; evaluationId: string }>) =>
    db
      .select({ id: comparisons.id })
      .from(comparisons)
      .where(and(eq(comparisons.id, $.id), eq(comparisons.evaluationId, $.evaluationId)))
      .limit(1),
);

export type NewRating = Omit<typeof ratings.$inferSelect, "rubricVersion">;

export const insertRating = hotStatement("insert_rating", (db, $: Params<NewRating>) =>
  db
    .insert(ratings)
    .values({
      id: $.id,
      evaluationId: $.evaluationId,
      comparisonId: $.comparisonId,
      teamId: $.teamId,
      raterType: $.raterType,
      userId: $.userId,
      publicRaterId: $.publicRaterId,
      autouserId: $.autouserId,
      autouserRunId: $.autouserRunId,
      singleRaterKey: $.singleRaterKey,
      dimensionRatings: $.dimensionRatings,
      templateVersions: $.templateVersions,
      openTextResponses: $.openTextResponses,
      factors: $.factors,
      justification: $.justification,
      skipReason: $.skipReason,
      timeSpentSeconds: $.timeSpentSeconds,
      createdAt: $.createdAt,
      updatedAt: $.updatedAt,
    })
    // A second rating by the same rater waits here for the first to commit, then fails on the unique index
    // (`alreadyRated`): an error, so that the commit sent behind it rolls the rest back.
    .returning(),
);

const countOnShard = hotStatement("count_rating_on_shard", (db, $: Params<{ evaluationId: string }>) =>
  db
    .insert(evaluationRatingRevisions)
    .values({
      evaluationId: $.evaluationId,
      shard: sql`pg_backend_pid() % ${sql.raw(String(REVISION_SHARDS))}`,
      revision: 1,
    })
    .onConflictDoUpdate({
      target: [evaluationRatingRevisions.evaluationId, evaluationRatingRevisions.shard],
      set: { revision: sql`${evaluationRatingRevisions.revision} + 1` },
    }),
);

/**
 * Counts a new rating on the evaluation's revision shard of this connection, late in the transaction so the shard
 * row stays locked only briefly before the commit; one connection runs one transaction at a time, so raters on different
 * connections seldom meet on a shard.
 */
export async function countRating(tx: DbOrTx, evaluationId: string): Promise<void> {
  await countOnShard(tx, { evaluationId });
}
