import { z } from "zod";
import { DateTime } from "./common";
import { listOf, PageQueryShape, withCursorRules } from "./pagination";

export const RATER_TYPES = ["user", "public", "autouser"] as const;
export const RaterType = z.enum(RATER_TYPES);
export type RaterType = (typeof RATER_TYPES)[number];

/** SxS preferences run from -3 (side A much better) through 0 (the same) to +3 (side B much better). */
export const SXS_PREFERENCE_MIN = -3;
export const SXS_PREFERENCE_MAX = 3;

export const Rating = z
  .object({
    id: z.string(),
    object: z.literal("rating"),
    evaluationId: z.string(),
    comparisonId: z.string(),
    raterType: RaterType.meta({
      description: "`user` (a team member), `public` (a share-link rater) or `autouser`.",
    }),
    userId: z.string().nullable(),
    publicRaterId: z.string().nullable(),
    autouserId: z.string().nullable(),
    autouserRunId: z.string().nullable(),
    dimensionRatings: z.record(z.string(), z.number()).meta({
      description:
        "Score per template id (the evaluation's `selectedDimensionIds`): SSE within the template's scale, SxS a preference from -3 (side A) to +3 (side B).",
    }),
    templateVersions: z
      .record(z.string(), z.number().int())
      .meta({ description: "The version of each rated template when the rating was made." }),
    openTextResponses: z.record(z.string(), z.string()),
    factors: z.array(z.string()),
    justification: z.string().nullable(),
    skipReason: z.string().nullable().meta({ description: "Set when the rater skipped the comparison." }),
    timeSpentSeconds: z.number().int().nullable(),
    createdAt: DateTime,
  })
  .meta({ id: "Rating" });
export type Rating = z.infer<typeof Rating>;
export const RatingList = listOf(Rating, "RatingList");

/** Bounds of a rating's free text, so one rater cannot store megabytes (the share link is public). */
export const RATING_LIMITS = {
  dimensionRatings: 50,
  openTextResponses: 20,
  openTextLength: 5000,
  factors: 50,
  justificationLength: 5000,
} as const;

function atMostKeys<T extends z.ZodType>(schema: T, max: number, what: string) {
  return schema.refine((value) => Object.keys(value as object).length <= max, {
    message: `At most ${max} ${what}.`,
  });
}

/** A rating as a rater submits it; the same body is taken by the API and by the public share page. */
export const RatingSubmission = z
  .object({
    comparisonId: z.string().min(1).max(100),
    dimensionRatings: atMostKeys(
      z.record(z.string().min(1).max(100), z.number().int()),
      RATING_LIMITS.dimensionRatings,
      "templates",
    )
      .default({})
      .meta({ description: "One integer per selected template id; may be empty only with `skipReason`." }),
    openTextResponses: atMostKeys(
      z.record(z.string().min(1).max(100), z.string().max(RATING_LIMITS.openTextLength)),
      RATING_LIMITS.openTextResponses,
      "open-text answers",
    )
      .default({})
      .meta({
        description: `Up to ${RATING_LIMITS.openTextResponses} answers of up to ${RATING_LIMITS.openTextLength} characters.`,
      }),
    factors: z.array(z.string().min(1).max(200)).max(RATING_LIMITS.factors).default([]),
    justification: z.string().max(RATING_LIMITS.justificationLength).optional(),
    skipReason: z.string().trim().min(1).max(500).optional(),
    timeSpentSeconds: z.number().int().min(0).max(86400).optional(),
  })
  .strict();
export type RatingSubmission = z.infer<typeof RatingSubmission>;

/** Filters of the ratings list, beside the page parameters. */
export const RatingFilterShape = {
  comparisonId: z
    .string()
    .min(1)
    .max(100)
    .meta({ description: "Only ratings of this comparison." })
    .optional(),
  raterType: RaterType.meta({ description: "Only ratings by this kind of rater." }).optional(),
};

export const RatingListQuery = withCursorRules(z.object({ ...PageQueryShape, ...RatingFilterShape }));

export const RatingBulkDeleteInput = z
  .object({ ids: z.array(z.string().min(1).max(100)).min(1).max(100) })
  .strict();

export const RatingBulkDeleteResult = z
  .object({
    object: z.literal("rating_bulk_delete"),
    deleted: z.array(z.string()).meta({ description: "Ids of the ratings that were deleted." }),
    notFound: z
      .array(z.string())
      .meta({ description: "Requested ids that are not ratings of this evaluation." }),
  })
  .meta({ id: "RatingBulkDeleteResult" });

export const PublicRater = z
  .object({
    id: z.string(),
    object: z.literal("public_rater"),
    evaluationId: z.string(),
    name: z.string().nullable(),
    email: z.string().nullable(),
    ratingCount: z.number().int(),
    excluded: z.boolean().meta({
      description:
        "Excluded by the evaluation's owners: takes no more ratings, and its ratings leave the results.",
    }),
    createdAt: DateTime,
  })
  .meta({ id: "PublicRater" });
export const PublicRaterList = listOf(PublicRater, "PublicRaterList");
