import { type EvaluationResults, SXS_PREFERENCE_MAX, SXS_PREFERENCE_MIN } from "@rubricon/contracts";
import { ci95MeanOnScale, distribution, mean, sampleStdDev } from "../stats/descriptive";
import { overallAgreement } from "./agreement";
import type { StatsData, StatsRating, StatsTemplate } from "./load";

type DimensionResult = EvaluationResults["dimensions"][number];
type Cell = { n: number; mean: number | null };

function valuesOf(ratings: StatsRating[], templateId: string): number[] {
  const out: number[] = [];
  for (const r of ratings) {
    if (r.skipped) continue;
    const v = r.dimensionRatings[templateId];
    if (v !== undefined) out.push(v);
  }
  return out;
}

export function sseDimension(t: StatsTemplate, values: number[]): DimensionResult {
  return {
    kind: "sse",
    templateId: t.id,
    name: t.name,
    version: t.version,
    scaleMin: t.scaleMin,
    scaleMax: t.scaleMax,
    n: values.length,
    distribution: distribution(values, t.scaleMin, t.scaleMax),
    mean: mean(values),
    stdDev: sampleStdDev(values),
    ci95: ci95MeanOnScale(values, t.scaleMin, t.scaleMax),
  };
}

/** The side whose interval of the mean preference lies wholly on its side of 0 wins; else no winner. */
function winnerOf(ci: { lower: number; upper: number } | null): "A" | "B" | "inconclusive" {
  if (!ci) return "inconclusive";
  if (ci.upper < 0) return "A";
  if (ci.lower > 0) return "B";
  return "inconclusive";
}

export function sxsDimension(t: StatsTemplate, values: number[]): DimensionResult {
  const ci95 = ci95MeanOnScale(values, SXS_PREFERENCE_MIN, SXS_PREFERENCE_MAX);
  return {
    kind: "sxs",
    templateId: t.id,
    name: t.name,
    version: t.version,
    n: values.length,
    distribution: distribution(values, SXS_PREFERENCE_MIN, SXS_PREFERENCE_MAX),
    sideAWins: values.filter((v) => v < 0).length,
    sideBWins: values.filter((v) => v > 0).length,
    ties: values.filter((v) => v === 0).length,
    meanPreference: mean(values),
    ci95,
    winner: winnerOf(ci95),
  };
}

function cells(data: StatsData, ratings: StatsRating[]): Record<string, Cell> {
  const out: Record<string, Cell> = {};
  for (const t of data.templates) {
    const values = valuesOf(ratings, t.id);
    out[t.id] = { n: values.length, mean: mean(values) };
  }
  return out;
}

function groupBy<K>(items: StatsRating[], key: (r: StatsRating) => K): Map<K, StatsRating[]> {
  const out = new Map<K, StatsRating[]>();
  for (const r of items) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

export function computeResults(data: StatsData, computedAt: Date): EvaluationResults {
  const { evaluation, ratings } = data;
  const autouserRatingCount = ratings.filter((r) => r.raterType === "autouser").length;
  const byComparison = groupBy(ratings, (r) => r.comparisonId);
  const byRater = groupBy(ratings, (r) => `${r.raterType}\u0000${r.raterId ?? ""}`);
  return {
    object: "evaluation_results",
    evaluationId: evaluation.id,
    type: evaluation.type,
    status: evaluation.status,
    computedAt: computedAt.toISOString(),
    ratingCount: ratings.length,
    humanRatingCount: ratings.length - autouserRatingCount,
    autouserRatingCount,
    excludedCount: ratings.filter((r) => r.skipped).length,
    dimensions: data.templates.map((t) =>
      evaluation.type === "SSE"
        ? sseDimension(t, valuesOf(ratings, t.id))
        : sxsDimension(t, valuesOf(ratings, t.id)),
    ),
    perComparison: data.comparisons.map((c) => {
      const rs = byComparison.get(c.id) ?? [];
      return {
        comparisonId: c.id,
        name: c.name,
        position: c.position,
        ratingCount: rs.length,
        excludedCount: rs.filter((r) => r.skipped).length,
        dimensions: cells(data, rs),
      };
    }),
    perRater: [...byRater.values()].map((rs) => ({
      raterType: rs[0]!.raterType,
      raterId: rs[0]!.raterId,
      ratingCount: rs.length,
      excludedCount: rs.filter((r) => r.skipped).length,
      dimensions: cells(data, rs),
    })),
    agreement: overallAgreement(data, { interval: true }),
  };
}
