import type { Rating } from "@rubricon/contracts";
import type { ratings } from "@rubricon/db";

export type RatingRow = typeof ratings.$inferSelect;

export function toRating(row: RatingRow): Rating {
  return {
    id: row.id,
    object: "rating",
    evaluationId: row.evaluationId,
    comparisonId: row.comparisonId,
    raterType: row.raterType,
    userId: row.userId,
    publicRaterId: row.publicRaterId,
    autouserId: row.autouserId,
    autouserRunId: row.autouserRunId,
    dimensionRatings: row.dimensionRatings,
    templateVersions: row.templateVersions,
    openTextResponses: row.openTextResponses,
    factors: row.factors,
    justification: row.justification,
    skipReason: row.skipReason,
    timeSpentSeconds: row.timeSpentSeconds,
    createdAt: row.createdAt.toISOString(),
  };
}
