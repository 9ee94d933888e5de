import type { CalibrationOptimizeResult } from "@rubricon/contracts";
import { autouserCalibrations, autouserRubrics, autousers, newId } from "@rubricon/db";
import { and, desc, eq } from "drizzle-orm";
import { toAutouserRubric } from "../../catalog";
import { bootstrapAlpha, krippendorffAlpha, mulberry32 } from "../../evaluation";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError } from "../../kernel";
import { getCalibration, loadCalibrationPairs, loadOwnAutouser, type Pair } from "./calibration";

/** The split and the bootstrap are seeded so the same calibration always gets the same answer. */
export const OPTIMIZE_SEED = 31;
/** Weights a template may take; 0 leaves it out of the composite. */
export const OPTIMIZE_GRID = [0, 0.25, 0.5, 1, 1.5, 2, 3] as const;
const FIT_SHARE = 0.7;
const MAX_PASSES = 8;
/** Fewer comparisons leave a held-out part too small for alpha to mean anything. */
export const OPTIMIZE_MIN_COMPARISONS = 6;

/** One comparison: the autouser's and the humans' (mean) rating per template both rated. */
export interface CalibrationItem {
  comparisonId: string;
  autouser: Record<string, number>;
  humans: Record<string, number>;
}

function itemsOf(pairs: Pair[]): CalibrationItem[] {
  const by = new Map<string, CalibrationItem>();
  for (const p of pairs) {
    const item = by.get(p.comparisonId) ?? { comparisonId: p.comparisonId, autouser: {}, humans: {} };
    item.autouser[p.dimension] = p.autouser;
    item.humans[p.dimension] = p.humans;
    by.set(p.comparisonId, item);
  }
  return [...by.values()].sort((a, b) => (a.comparisonId < b.comparisonId ? -1 : 1));
}

/** Seeded Fisher–Yates over comparisons in id order: about 70% to fit on, the rest held out. */
export function splitItems<T>(items: T[], seed = OPTIMIZE_SEED): { fit: T[]; heldOut: T[] } {
  const shuffled = [...items];
  const random = mulberry32(seed);
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  const fit = Math.min(shuffled.length - 2, Math.max(2, Math.round(shuffled.length * FIT_SHARE)));
  return { fit: shuffled.slice(0, fit), heldOut: shuffled.slice(fit) };
}

/**
 * The weighted composite of each comparison's templates, the autouser's beside the humans': the weights say how
 * much each template counts in the persona's judgement, so a template the autouser reads unlike the humans can
 * be weighed down. A comparison whose templates all weigh 0 drops out.
 */
function compositeUnits(items: CalibrationItem[], weights: Record<string, number>): number[][] {
  const units: number[][] = [];
  for (const item of items) {
    let total = 0;
    let a = 0;
    let h = 0;
    for (const [dim, value] of Object.entries(item.autouser)) {
      const w = weights[dim] ?? 0;
      total += w;
      a += w * value;
      h += w * item.humans[dim]!;
    }
    if (total > 0) units.push([a / total, h / total]);
  }
  return units;
}

function alphaOf(items: CalibrationItem[], weights: Record<string, number>): number | null {
  const units = compositeUnits(items, weights);
  return units.length > 1 ? krippendorffAlpha(units, "interval").alpha : null;
}

function figureOf(items: CalibrationItem[], weights: Record<string, number>) {
  const units = compositeUnits(items, weights);
  const alpha = units.length > 1 ? krippendorffAlpha(units, "interval").alpha : null;
  const interval =
    alpha !== null ? bootstrapAlpha(units, "interval", { seed: OPTIMIZE_SEED, samples: 1000 }) : null;
  return {
    weights,
    krippendorffAlpha: alpha,
    alphaCi95: interval ? { lower: interval.lower, upper: interval.upper } : null,
  };
}

/**
 * Coordinate ascent over the grid: each template in turn takes the grid weight that most raises alpha on the
 * fitted comparisons, until a pass changes nothing (at most MAX_PASSES passes, so the work is bounded by
 * passes × templates × grid). Only a strict gain moves a weight, so ties keep the current one.
 */
export function searchWeights(items: CalibrationItem[], start: Record<string, number>, dims: string[]) {
  const weights = { ...start };
  let best = alphaOf(items, weights) ?? Number.NEGATIVE_INFINITY;
  let passes = 0;
  let evaluations = 1;
  for (; passes < MAX_PASSES; ) {
    passes++;
    let changed = false;
    for (const dim of dims) {
      for (const w of OPTIMIZE_GRID) {
        if (w === weights[dim]) continue;
        const trial = { ...weights, [dim]: w };
        const alpha = alphaOf(items, trial);
        evaluations++;
        if (alpha !== null && alpha > best + 1e-9) {
          best = alpha;
          weights[dim] = w;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  return { weights, passes, evaluations };
}

/**
 * `POST /autousers/{id}/calibration/optimize`: fits the weights of the templates in the persona's judgement to
 * the human ratings of its latest completed calibration on ~70% of the comparisons, reports alpha before and
 * after on the other 30%, and saves the proposal as the next unfrozen version of the calibrated rubric. It never
 * freezes it nor makes it active: freezing after a calibration does that.
 */
export async function optimizeCalibration(
  ctx: CoreContext,
  actor: Actor,
  autouserId: string,
): Promise<CalibrationOptimizeResult> {
  const autouser = await loadOwnAutouser(ctx.db, actor, autouserId);
  const [any] = await ctx.db
    .select({ id: autouserCalibrations.id })
    .from(autouserCalibrations)
    .where(eq(autouserCalibrations.autouserId, autouser.id))
    .limit(1);
  if (!any) {
    throw new ApiError("calibration_not_completed", `Autouser ${autouserId} has not been calibrated yet.`);
  }
  const calibration = await getCalibration(ctx, actor, autouserId);
  if (calibration.status !== "completed" || !calibration.runId) {
    throw new ApiError(
      "calibration_not_completed",
      calibration.status === "running"
        ? "The calibration is still running; optimise once its figures are in."
        : "The latest calibration failed; calibrate again before optimising.",
    );
  }
  const [rubric] = await ctx.db
    .select()
    .from(autouserRubrics)
    .where(eq(autouserRubrics.id, calibration.rubricId))
    .limit(1);
  if (!rubric) {
    throw ApiError.notFound("resource_not_found", `The calibrated rubric ${calibration.rubricId} is gone.`);
  }
  const items = itemsOf(await loadCalibrationPairs(ctx.db, calibration.evaluationId, calibration.runId));
  if (items.length < OPTIMIZE_MIN_COMPARISONS) {
    throw new ApiError(
      "calibration_too_few_pairs",
      `${items.length} comparison(s) carry both the autouser's and human ratings; at least ` +
        `${OPTIMIZE_MIN_COMPARISONS} are needed to fit on some and test on the rest. Calibrate on more.`,
      { details: { comparisons: items.length, minimum: OPTIMIZE_MIN_COMPARISONS } },
    );
  }
  const dims = [...new Set(items.flatMap((i) => Object.keys(i.autouser)))].sort();
  // A template the rubric does not weigh counts once; negative weights have no meaning in a composite.
  const start = Object.fromEntries(dims.map((d) => [d, Math.max(0, rubric.weights[d] ?? 1)]));
  const { fit, heldOut } = splitItems(items);
  const found = searchWeights(fit, start, dims);
  const proposed = { ...rubric.weights, ...found.weights };

  const now = ctx.clock.now();
  const saved = await ctx.db.transaction(async (tx) => {
    // Locking the autouser orders this with rubric edits, so two writers cannot take the same next version.
    await tx.select({ id: autousers.id }).from(autousers).where(eq(autousers.id, autouser.id)).for("update");
    const [latest] = await tx
      .select({ version: autouserRubrics.version })
      .from(autouserRubrics)
      .where(
        and(eq(autouserRubrics.autouserId, autouser.id), eq(autouserRubrics.dimensionId, rubric.dimensionId)),
      )
      .orderBy(desc(autouserRubrics.version))
      .limit(1);
    const [row] = await tx
      .insert(autouserRubrics)
      .values({
        id: newId("rubric"),
        autouserId: autouser.id,
        dimensionId: rubric.dimensionId,
        name: rubric.name,
        guidance: rubric.guidance,
        weights: proposed,
        version: (latest?.version ?? rubric.version) + 1,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return row!;
  });
  return {
    object: "calibration_optimization",
    autouserId: autouser.id,
    calibrationId: calibration.id,
    metric: "interval",
    split: { seed: OPTIMIZE_SEED, fit: fit.length, heldOut: heldOut.length },
    search: {
      grid: [...OPTIMIZE_GRID],
      passes: found.passes,
      evaluations: found.evaluations,
      fitAlphaBefore: alphaOf(fit, start),
      fitAlphaAfter: alphaOf(fit, found.weights),
    },
    before: figureOf(heldOut, start),
    after: figureOf(heldOut, found.weights),
    rubric: toAutouserRubric(saved),
  };
}
