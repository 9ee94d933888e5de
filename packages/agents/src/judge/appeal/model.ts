import { Matrix, solve } from "ml-matrix";
import type { VisualSignals } from "../../types";

/**
 * The judge's sense of design (heuristic-v14; from v15 a page that is one picture is measured on the picture at its
 * natural size): a ridge-regularised linear model over the screenshot measures, fitted to people's mean appeal
 * ratings (1-9) of website screenshots (Reinecke & Gajos 2014, the 300 training pages; see fit-appeal.ts). Each
 * feature is standardised with the training set's mean and deviation, so a coefficient reads as "rating points per
 * standard deviation" and the explanation can name the measures that moved a page most.
 */

/** One feature: its name, in words for the explanation, and how it is read off the measures. */
interface FeatureDef {
  name: string;
  words: string;
  of: (v: VisualSignals) => number | null;
}

const ln = (x: number) => Math.log(Math.max(x, 1e-4));

/**
 * Linear terms and squares for the measures the papers find an inverted U for (colourfulness, complexity,
 * whitespace: Reinecke et al. 2013; Miniukovich & De Angeli 2015), the grid and colour-range measures of
 * Miniukovich & De Angeli, and the share in pictures and panels.
 */
export const APPEAL_FEATURES: readonly FeatureDef[] = [
  { name: "colourfulness", words: "colourfulness", of: (v) => v.colourfulness },
  { name: "colourfulness2", words: "colourfulness (too much)", of: (v) => (v.colourfulness / 50) ** 2 },
  { name: "edges", words: "visual complexity (edges)", of: (v) => ln(v.edgeDensity) },
  { name: "edges2", words: "visual complexity (edges, extremes)", of: (v) => (ln(v.edgeDensity) + 3) ** 2 },
  { name: "quadtree", words: "visual complexity (quadtree)", of: (v) => ln(1 + (v.quadtreeDensity ?? 0)) },
  {
    name: "quadtree2",
    words: "visual complexity (quadtree, extremes)",
    of: (v) => (ln(1 + (v.quadtreeDensity ?? 0)) - 2) ** 2,
  },
  { name: "whitespace", words: "whitespace", of: (v) => v.whitespace },
  { name: "whitespace2", words: "whitespace (extremes)", of: (v) => (v.whitespace - 0.5) ** 2 },
  { name: "balance", words: "balance", of: (v) => v.balance },
  { name: "symmetry", words: "symmetry", of: (v) => v.symmetry },
  { name: "figureGround", words: "figure-ground contrast", of: (v) => v.figureGround ?? null },
  { name: "alignment", words: "grid alignment", of: (v) => v.alignment ?? null },
  {
    name: "colours",
    words: "number of dominant colours",
    of: (v) => (v.dominantColours === undefined ? null : ln(1 + v.dominantColours)),
  },
  { name: "pictures", words: "pictures", of: (v) => v.pictureShare ?? null },
  { name: "surfaces", words: "panels and bars", of: (v) => v.surfaceShare ?? null },
  { name: "textSize", words: "text size", of: (v) => v.glyphHeight ?? null },
];

/** A fitted model as stored in appeal-fit.json. */
export interface AppealFit {
  /** Feature names, in the order of `mean`, `sd` and `coefficients`. */
  features: string[];
  mean: number[];
  sd: number[];
  intercept: number;
  coefficients: number[];
  lambda: number;
  /** Predicted ratings mapped to appeal 0..1: `low` (the 5th percentile of the training pages) to `high` (95th). */
  scale: { low: number; high: number };
}

/** The raw feature values of one screenshot; a measure the capture lacks is null (scored as the training mean). */
export function featureValues(v: VisualSignals): (number | null)[] {
  return APPEAL_FEATURES.map((f) => {
    const x = f.of(v);
    return x === null || !Number.isFinite(x) ? null : x;
  });
}

const round = (x: number, d = 6) => Math.round(x * 10 ** d) / 10 ** d;

/** Ridge regression on standardised features; the intercept is the mean rating and is not shrunk. */
export function fitRidge(rows: (number | null)[][], y: number[], lambda: number): AppealFit {
  const p = APPEAL_FEATURES.length;
  const mean: number[] = [];
  const sd: number[] = [];
  for (let j = 0; j < p; j++) {
    const xs = rows.map((r) => r[j]).filter((x): x is number => x !== null && x !== undefined);
    const m = xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
    const s = xs.length < 2 ? 1 : Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
    mean.push(round(m));
    sd.push(round(s > 1e-9 ? s : 1));
  }
  const z = rows.map((r) => r.map((x, j) => (x === null || x === undefined ? 0 : (x - mean[j]!) / sd[j]!)));
  const yMean = y.reduce((a, b) => a + b, 0) / y.length;
  const X = new Matrix(z);
  const Y = Matrix.columnVector(y.map((v) => v - yMean));
  const XtX = X.transpose().mmul(X);
  for (let j = 0; j < p; j++) XtX.set(j, j, XtX.get(j, j) + lambda);
  const beta = solve(XtX, X.transpose().mmul(Y)).getColumn(0);
  const fit: AppealFit = {
    features: APPEAL_FEATURES.map((f) => f.name),
    mean,
    sd,
    intercept: round(yMean),
    coefficients: beta.map((b) => round(b)),
    lambda,
    scale: { low: 0, high: 1 },
  };
  const predicted = rows.map((r) => predictRow(fit, r)).sort((a, b) => a - b);
  fit.scale = {
    low: round(predicted[Math.floor(0.05 * (predicted.length - 1))]!, 4),
    high: round(predicted[Math.ceil(0.95 * (predicted.length - 1))]!, 4),
  };
  return fit;
}

/**
 * Terms that may only lower a judged design's rating. On the training screenshots weaker figure-ground contrast
 * goes with higher ratings (busy photographs have strong edges), but the papers find the opposite between designs,
 * and a page whose text was turned light grey must not gain appeal for it: the fitted term still holds strong,
 * busy edges against a design, and never lifts a faint one.
 */
export const ONLY_LOWERS: ReadonlySet<string> = new Set(["figureGround"]);

function term(fit: AppealFit, j: number, x: number, judged: boolean): number {
  const t = fit.coefficients[j]! * ((x - fit.mean[j]!) / fit.sd[j]!);
  return judged && ONLY_LOWERS.has(APPEAL_FEATURES[j]!.name) ? Math.min(0, t) : t;
}

/** The predicted rating; `judged` applies `ONLY_LOWERS` (the fitting itself sees every term as fitted). */
function predictRow(fit: AppealFit, row: (number | null)[], judged = false): number {
  let y = fit.intercept;
  for (let j = 0; j < fit.coefficients.length; j++) {
    const x = row[j];
    if (x === null || x === undefined) continue;
    y += term(fit, j, x, judged);
  }
  return y;
}

/** What each feature added to the predicted rating (rating points), by feature name. */
export function contributions(
  fit: AppealFit,
  v: VisualSignals,
): { name: string; words: string; points: number }[] {
  const row = featureValues(v);
  return APPEAL_FEATURES.map((f, j) => {
    const x = row[j];
    const points =
      x === null || x === undefined ? 0 : fit.coefficients[j]! * ((x - fit.mean[j]!) / fit.sd[j]!);
    return { name: f.name, words: f.words, points: round(points, 3) };
  });
}

/** The rating people would give the screenshot, on their 1-9 scale, as the model predicts it. */
export function predictedRating(fit: AppealFit, v: VisualSignals): number {
  return round(predictRow(fit, featureValues(v), true), 3);
}

/** Appeal 0..1: the predicted rating between the training set's 5th and 95th percentiles. */
export function fittedAppeal(fit: AppealFit, v: VisualSignals): number {
  const r = predictRow(fit, featureValues(v), true);
  const { low, high } = fit.scale;
  return Math.round(Math.min(1, Math.max(0, (r - low) / (high - low))) * 1000) / 1000;
}

/** Spearman's rank correlation (ties share their mean rank). */
export function spearman(a: number[], b: number[]): number {
  const ra = ranks(a);
  const rb = ranks(b);
  const n = a.length;
  const ma = ra.reduce((s, x) => s + x, 0) / n;
  const mb = rb.reduce((s, x) => s + x, 0) / n;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < n; i++) {
    num += (ra[i]! - ma) * (rb[i]! - mb);
    da += (ra[i]! - ma) ** 2;
    db += (rb[i]! - mb) ** 2;
  }
  return da === 0 || db === 0 ? 0 : num / Math.sqrt(da * db);
}

function ranks(xs: number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((p, q) => p[0] - q[0]);
  const out = new Array<number>(xs.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
    for (let k = i; k <= j; k++) out[order[k]![1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return out;
}

/** The fold (0..k-1) of the i-th page in a list sorted by page id: deterministic, interleaved. */
export const foldOf = (i: number, k: number) => i % k;

/**
 * k-fold cross-validation: each page's rating predicted by a model fitted on the other folds, with the ridge
 * strength chosen inside those folds (nested), so the figure is out of sample. Answers the predictions, the
 * Spearman correlation with people and each fold's model.
 */
export function crossValidate(
  rows: (number | null)[][],
  y: number[],
  k: number,
  lambdas: readonly number[],
): { predicted: number[]; spearman: number; folds: AppealFit[] } {
  const predicted = new Array<number>(rows.length).fill(0);
  const folds: AppealFit[] = [];
  for (let f = 0; f < k; f++) {
    const train = rows.map((_, i) => i).filter((i) => foldOf(i, k) !== f);
    const lambda = bestLambda(
      train.map((i) => rows[i]!),
      train.map((i) => y[i]!),
      k,
      lambdas,
    );
    const fit = fitRidge(
      train.map((i) => rows[i]!),
      train.map((i) => y[i]!),
      lambda,
    );
    folds.push(fit);
    rows.forEach((r, i) => {
      if (foldOf(i, k) === f) predicted[i] = predictRow(fit, r);
    });
  }
  return { predicted, spearman: round(spearman(predicted, y), 4), folds };
}

/** The ridge strength with the best inner k-fold Spearman (the smallest on a tie). */
export function bestLambda(
  rows: (number | null)[][],
  y: number[],
  k: number,
  lambdas: readonly number[],
): number {
  let best = lambdas[0]!;
  let bestRho = Number.NEGATIVE_INFINITY;
  for (const lambda of lambdas) {
    const predicted = new Array<number>(rows.length).fill(0);
    for (let f = 0; f < k; f++) {
      const train = rows.map((_, i) => i).filter((i) => foldOf(i, k) !== f);
      const fit = fitRidge(
        train.map((i) => rows[i]!),
        train.map((i) => y[i]!),
        lambda,
      );
      rows.forEach((r, i) => {
        if (foldOf(i, k) === f) predicted[i] = predictRow(fit, r);
      });
    }
    const rho = spearman(predicted, y);
    if (rho > bestRho + 1e-9) {
      bestRho = rho;
      best = lambda;
    }
  }
  return best;
}
