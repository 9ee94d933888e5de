import type { AlphaMetric, AlphaStat, EvaluationAgreement } from "@rubricon/contracts";
import { bootstrapAlpha, krippendorffAlpha, prepareReliabilityData } from "../stats/krippendorff";
import type { StatsData } from "./load";

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

type Group = "all" | "humans" | "autousers" | "humansVsAutousers";

interface Units {
  units: number[][];
  raters: number;
}

/**
 * The ratings indexed once: per template and comparison (a cell, one unit of reliability data), the values
 * humans and autousers gave, skipped ratings left out; and who rated each template. Comparisons are numbered
 * in the order their first rating was given, which the bootstrap's resampling order follows.
 */
export interface Cells {
  comparisons: number;
  human: number[][];
  autouser: number[][];
  /** How many distinct raters of a kind gave a value to any of the templates (by index). */
  raters: (kind: "human" | "autouser", templates: number[]) => number;
}

function indexCells(data: StatsData): Cells {
  const comparisonIndex = new Map<string, number>();
  for (const r of data.ratings) {
    if (!comparisonIndex.has(r.comparisonId)) comparisonIndex.set(r.comparisonId, comparisonIndex.size);
  }
  const n = comparisonIndex.size;
  const size = n * data.templates.length;
  const humanRaters: Set<string>[] = data.templates.map(() => new Set());
  const autouserRaters: Set<string>[] = data.templates.map(() => new Set());
  const cells: Cells = {
    comparisons: n,
    human: Array.from({ length: size }, () => []),
    autouser: Array.from({ length: size }, () => []),
    raters: (kind, templates) =>
      union(templates.map((t) => (kind === "human" ? humanRaters : autouserRaters)[t]!)),
  };
  for (const r of data.ratings) {
    if (r.skipped) continue;
    const c = comparisonIndex.get(r.comparisonId)!;
    const autouser = r.raterType === "autouser";
    const rater = `${r.raterType}:${r.raterId ?? r.id}`;
    for (const [t, template] of data.templates.entries()) {
      const v = r.dimensionRatings[template.id];
      if (v === undefined) continue;
      (autouser ? cells.autouser : cells.human)[t * n + c]!.push(v);
      (autouser ? autouserRaters : humanRaters)[t]!.add(rater);
    }
  }
  return cells;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

function union(sets: Set<string>[]): number {
  if (sets.length === 1) return sets[0]!.size;
  const all = new Set<string>();
  for (const s of sets) for (const k of s) all.add(k);
  return all.size;
}

/** The units of one rater group over the given templates (by index). */
function unitsOf(cells: Cells, templates: number[], group: Group): Units {
  const units: number[][] = [];
  for (const t of templates) {
    for (let c = 0; c < cells.comparisons; c++) {
      const h = cells.human[t * cells.comparisons + c]!;
      const a = cells.autouser[t * cells.comparisons + c]!;
      if (group === "humans") units.push(h);
      else if (group === "autousers") units.push(a);
      else if (group === "all") units.push(a.length === 0 ? h : h.length === 0 ? a : h.concat(a));
      // Two raters per unit, the humans and the autousers, each speaking with its median.
      else if (h.length > 0 && a.length > 0) units.push([median(h), median(a)]);
    }
  }
  const humanRaters = () => cells.raters("human", templates);
  const autouserRaters = () => cells.raters("autouser", templates);
  const raters =
    group === "humans"
      ? humanRaters()
      : group === "autousers"
        ? autouserRaters()
        : group === "all"
          ? humanRaters() + autouserRaters()
          : units.length > 0
            ? 2
            : 0;
  return { units, raters };
}

function alphaStat({ units, raters }: Units, metric: AlphaMetric, seed: number | null): AlphaStat {
  // Checked and indexed once, then shared by the point estimate and the bootstrap.
  const data = prepareReliabilityData(units);
  const result = krippendorffAlpha(data, metric);
  const ci =
    seed !== null && result.alpha !== null
      ? bootstrapAlpha(data, metric, { seed, samples: BOOTSTRAP_SAMPLES })
      : null;
  return {
    alpha: result.alpha,
    metric,
    raters,
    units: result.units,
    values: result.values,
    ci95: ci ? { lower: ci.lower, upper: ci.upper } : null,
    undefinedReason: result.undefinedReason ?? null,
  };
}

function groupStats(
  data: AgreementBasis,
  cells: Cells,
  group: Group,
  metric: AlphaMetric,
  seed: number | null,
): EvaluationAgreement["groups"]["humans"] {
  const every = data.templates.map((_, i) => i);
  const overall = alphaStat(unitsOf(cells, every, group), metric, seed);
  return {
    overall,
    dimensions: data.templates.map((t, i) => ({
      // With a single template the dimension is the whole evaluation: same units, same figures.
      ...(data.templates.length === 1 ? overall : alphaStat(unitsOf(cells, [i], group), metric, seed)),
      // After the figures, in the schema's order: the payload is answered without parsing it again.
      templateId: t.id,
      name: t.name,
    })),
  };
}

/** Alpha of all raters over every template; event summaries carry it without the interval. */
export function overallAgreement(
  data: StatsData,
  opts: { metric?: AlphaMetric; interval?: boolean } = {},
): AlphaStat {
  return overallAgreementOfCells(data, indexCells(data), opts);
}

/** What agreement needs besides the cells: the evaluation, its templates, which kinds of rater rated. */
export type AgreementBasis = Pick<StatsData, "evaluation" | "templates">;

export function overallAgreementOfCells(
  data: AgreementBasis,
  cells: Cells,
  opts: { metric?: AlphaMetric; interval?: boolean } = {},
): AlphaStat {
  return alphaStat(
    unitsOf(
      cells,
      data.templates.map((_, i) => i),
      "all",
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
  return computeAgreementOfCells(
    data,
    indexCells(data),
    {
      anyAutouser: data.ratings.some((r) => r.raterType === "autouser"),
      anyHuman: data.ratings.some((r) => r.raterType !== "autouser"),
    },
    computedAt,
    metric,
  );
}

export function computeAgreementOfCells(
  data: AgreementBasis,
  cells: Cells,
  kinds: { anyAutouser: boolean; anyHuman: boolean },
  computedAt: Date,
  metric?: AlphaMetric,
): EvaluationAgreement {
  const m = metric ?? defaultMetric(data.evaluation.type);
  const seed = seedFor(data.evaluation.id);
  const all = groupStats(data, cells, "all", m, seed);
  // With one kind of rater only, that kind's figures are the evaluation's: computed once.
  const { anyAutouser, anyHuman } = kinds;
  return {
    object: "evaluation_agreement",
    evaluationId: data.evaluation.id,
    computedAt: computedAt.toISOString(),
    ...all,
    groups: {
      humans: anyAutouser ? groupStats(data, cells, "humans", m, seed) : all,
      autousers: anyHuman ? groupStats(data, cells, "autousers", m, seed) : all,
      humansVsAutousers: groupStats(data, cells, "humansVsAutousers", m, seed),
    },
    bootstrap: { samples: BOOTSTRAP_SAMPLES, seed },
  };
}
