import { type RatingSubmission, SXS_PREFERENCE_MAX, SXS_PREFERENCE_MIN } from "@rubricon/contracts";
import { ApiError } from "../../kernel";
import type { EvaluationRow } from "../evaluations/serialize";
import type { StatsTemplate } from "../results/load";

/**
 * Checks a submission against the evaluation's templates: every selected template rated (unless the comparison
 * is skipped), no other keys, SSE scores inside the template's scale, SxS preferences from -3 to +3.
 */
export function validateDimensionRatings(
  evaluation: EvaluationRow,
  templates: StatsTemplate[],
  input: RatingSubmission,
): void {
  const known = new Map(templates.map((t) => [t.id, t]));
  for (const key of Object.keys(input.dimensionRatings)) {
    if (!known.has(key)) {
      throw ApiError.invalid(
        `dimensionRatings.${key}`,
        `\`${key}\` is not a template of this evaluation; rate ${[...known.keys()].map((k) => `\`${k}\``).join(", ")}.`,
      );
    }
  }
  if (input.skipReason !== undefined) {
    if (Object.keys(input.dimensionRatings).length > 0) {
      throw ApiError.invalid("skipReason", "A skipped comparison carries no `dimensionRatings`.");
    }
    return;
  }
  for (const t of templates) {
    const value = input.dimensionRatings[t.id];
    if (value === undefined) {
      throw ApiError.invalid(
        `dimensionRatings.${t.id}`,
        `Rate \`${t.id}\` (${t.name}), or skip the comparison with \`skipReason\`.`,
        "parameter_missing",
      );
    }
    const [min, max] =
      evaluation.type === "SSE" ? [t.scaleMin, t.scaleMax] : [SXS_PREFERENCE_MIN, SXS_PREFERENCE_MAX];
    if (value < min || value > max) {
      const what =
        evaluation.type === "SSE"
          ? `${t.name} is rated on ${min} to ${max}`
          : `SxS preferences run from ${min} (side A) to +${max} (side B)`;
      throw ApiError.invalid(`dimensionRatings.${t.id}`, `${value} is out of range: ${what}.`);
    }
  }
}
