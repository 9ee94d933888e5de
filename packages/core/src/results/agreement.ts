import type { AlphaMetric, AlphaStat, EvaluationAgreement } from "@rubricon/contracts";
import { bootstrapAlpha, krippendorffAlpha } from "../stats/krippendorff";
import type { StatsData, StatsRating } from "./load";

export const BOOTSTRAP_SAMPLES = 1000;

/** Likert scales are ordered categories (ordinal); SxS preferences are distances from "the same" (interval). */
export function defaultMetric(type: "SSE" | "SxS"): AlphaMetric {
  return type === "SSE" ? "ordinal" : "interval";
}

/** A stable seed per evaluation, so the bootstrap interval is the same on every read. */
export function seedFor(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

type RaterFilter = (r: StatsRating) => boolean;
const everyone: RaterFilter = () => true;
const humans: RaterFilter = (r) => r.raterType !== "autouser";
const autousers: RaterFilter = (r) => r.raterType === "autouser";

interface Units {
  units: number[][];
  raters: Set<string>;
}

/** One unit per comparison and template: the values its raters gave, skipped ratings left out. */
function unitsOf(data: StatsData, templateIds: string[], filter: RaterFilter): Units {
  const cells = new Map<string, number[]>();
  const raters = new Set<string>();
  for (const r of data.ratings) {
    if (r.skipped || !filter(r)) continue;
    for (const id of templateIds) {
      const v = r.dimensionRatings[id];
      if (v === undefined) continue;
      const key = `${r.comparisonId}\u0000${id}`;
      const cell = cells.get(key);
      if (cell) cell.push(v);
      else cells.set(key, [v]);
      raters.add(`${r.raterType}:${r.raterId ?? r.id}`);
    }
  }
  return { units: [...cells.values()], raters };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

/** Two raters per unit, the humans and the autousers, each speaking with its median. */
function humanVsAutouserUnits(data: StatsData, templateIds: string[]): Units {
  const h = new Map<string, number[]>();
  const a = new Map<string, number[]>();
  for (const r of data.ratings) {
    if (r.skipped) continue;
    const side = r.raterType === "autouser" ? a : h;
    for (const id of templateIds) {
      const v = r.dimensionRatings[id];
      if (v === undefined) continue;
      const key = `${r.comparisonId}\u0000${id}`;
      const cell = side.get(key);
      if (cell) cell.push(v);
      else side.set(key, [v]);
    }
  }
  const units: number[][] = [];
  for (const [key, values] of h) {
    const other = a.get(key);
    if (other) units.push([median(values), median(other)]);
  }
  return { units, raters: new Set(units.length > 0 ? ["humans", "autousers"] : []) };
}

function alphaStat({ units, raters }: Units, metric: AlphaMetric, seed: number | null): AlphaStat {
  const result = krippendorffAlpha(units, metric);
  const ci =
    seed !== null && result.alpha !== null
      ? bootstrapAlpha(units, metric, { seed, samples: BOOTSTRAP_SAMPLES })
      : null;
  return {
    alpha: result.alpha,
    metric,
    raters: raters.size,
    units: result.units,
    values: result.values,
    ci95: ci ? { lower: ci.lower, upper: ci.upper } : null,
    undefinedReason: result.undefinedReason ?? null,
  };
}

function group(
  data: StatsData,
  metric: AlphaMetric,
  seed: number | null,
  unitsFor: (templateIds: string[]) => Units,
): EvaluationAgreement["groups"]["humans"] {
  return {
    overall: alphaStat(unitsFor(data.templates.map((t) => t.id)), metric, seed),
    dimensions: data.templates.map((t) => ({
      templateId: t.id,
      name: t.name,
      ...alphaStat(unitsFor([t.id]), metric, seed),
    })),
  };
}

/** Alpha of all raters over every template; event summaries carry it without the interval. */
export function overallAgreement(
  data: StatsData,
  opts: { metric?: AlphaMetric; interval?: boolean } = {},
): AlphaStat {
  return alphaStat(
    unitsOf(
      data,
      data.templates.map((t) => t.id),
      everyone,
    ),
    opts.metric ?? defaultMetric(data.evaluation.type),
    opts.interval ? seedFor(data.evaluation.id) : null,
  );
}

export function computeAgreement(
  data: StatsData,
  computedAt: Date,
  metric?: AlphaMetric,
): EvaluationAgreement {
  const m = metric ?? defaultMetric(data.evaluation.type);
  const seed = seedFor(data.evaluation.id);
  const all = group(data, m, seed, (ids) => unitsOf(data, ids, everyone));
  return {
    object: "evaluation_agreement",
    evaluationId: data.evaluation.id,
    computedAt: computedAt.toISOString(),
    ...all,
    groups: {
      humans: group(data, m, seed, (ids) => unitsOf(data, ids, humans)),
      autousers: group(data, m, seed, (ids) => unitsOf(data, ids, autousers)),
      humansVsAutousers: group(data, m, seed, (ids) => humanVsAutouserUnits(data, ids)),
    },
    bootstrap: { samples: BOOTSTRAP_SAMPLES, seed },
  };
}
