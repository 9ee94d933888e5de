import type { Comparison, ShareView, Template } from "@rubricon/contracts";

/** What a rater needs of a template: the share view's shape, which the dashboard builds from a full template. */
export type RatingTemplate = ShareView["templates"][number];
export type EvaluationKind = "SSE" | "SxS";
export type { Comparison };

/** The body both the share API and `ratings.create` take (without the evaluation id). */
export interface RatingBody {
  comparisonId: string;
  dimensionRatings: Record<string, number>;
  justification?: string;
  skipReason?: string;
  timeSpentSeconds?: number;
}

export type SubmitResult = { ok: true } | { ok: false; code?: string; message: string };

/** -3 (A much better) … 0 … +3 (B much better), the side-by-side preference scale. */
export const PREFERENCE_POINTS = [-3, -2, -1, 0, 1, 2, 3] as const;

const DEFAULT_PREFERENCE_WORDS = ["much better", "better", "slightly better"];

/**
 * The name of a preference point, side first ("A much better", "About the same"). Template labels for SxS are
 * written without a side ("Much better"), so the side is added here.
 */
export function preferenceName(value: number, labels: RatingTemplate["labels"]): string {
  if (value === 0) return labels?.[3]?.trim() || "About the same";
  const side = value < 0 ? "A" : "B";
  const custom = labels?.[value + 3]?.trim();
  const words = custom || DEFAULT_PREFERENCE_WORDS[3 - Math.abs(value)]!;
  if (/^(a|b)\b/i.test(words)) return words;
  return `${side} ${words.charAt(0).toLowerCase()}${words.slice(1)}`;
}

/** The label of an SSE scale point, when the template gives one; labels run from `scaleMin` upward. */
export function scaleLabel(template: RatingTemplate, value: number): string | null {
  return template.labels?.[value - template.scaleMin]?.trim() || null;
}

export function scalePointsOf(template: Pick<RatingTemplate, "scaleMin" | "scaleMax">): number[] {
  const out: number[] = [];
  for (let v = template.scaleMin; v <= template.scaleMax; v++) out.push(v);
  return out;
}

/** The rater-facing view of a full template, picked the way the share API picks it for the evaluation type. */
export function toRatingTemplate(t: Template, kind: EvaluationKind): RatingTemplate {
  const sse = kind === "SSE";
  const question = (sse ? t.sseQuestion : t.scaleQuestion) || null;
  return {
    id: t.id,
    name: t.name,
    version: t.version,
    scaleMin: t.scaleMin,
    scaleMax: t.scaleMax,
    question,
    labels: (sse ? t.sseScaleLabels : t.sxsScaleLabels) ?? null,
    guidelines: t.guidelines || null,
  };
}
