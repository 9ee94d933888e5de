/** Descriptive statistics of rating values. Every function rejects values that are not finite numbers. */

export interface MeanInterval {
  lower: number;
  upper: number;
}

function assertFinite(values: readonly number[]): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new RangeError(`Value ${i} is not a finite number (${String(v)}).`);
    }
  }
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/** Arithmetic mean; null for no values. */
export function mean(values: readonly number[]): number | null {
  assertFinite(values);
  return values.length === 0 ? null : sum(values) / values.length;
}

/** Sample standard deviation (n - 1 denominator); null below two values. */
export function sampleStdDev(values: readonly number[]): number | null {
  assertFinite(values);
  const n = values.length;
  if (n < 2) return null;
  const m = sum(values) / n;
  // Two passes: summing squared deviations from the mean avoids the cancellation of sum(x^2) - n m^2.
  let squares = 0;
  for (const v of values) squares += (v - m) * (v - m);
  return Math.sqrt(squares / (n - 1));
}

/** t_{0.975, df} for df = 1..30 (two-sided 95%), to 12 significant digits. */
const T975 = [
  12.7062047362, 4.30265272975, 3.18244630528, 2.7764451052, 2.57058183564, 2.44691185114, 2.36462425159,
  2.3060041352, 2.2621571628, 2.22813885199, 2.20098516009, 2.17881282967, 2.16036865646, 2.14478668792,
  2.13144954556, 2.11990529922, 2.10981557783, 2.10092204024, 2.09302405441, 2.08596344727, 2.07961384473,
  2.0738730679, 2.06865761042, 2.06389856163, 2.05953855275, 2.05552943864, 2.05183051648, 2.0484071418,
  2.04522964213, 2.0422724563,
];

const Z975 = 1.959963984540054;

/** A 95% interval of a mean on a bounded scale. */
export interface ScaleInterval extends MeanInterval {
  /** The t-interval ran past an end of the scale and was cut to it. */
  clipped: boolean;
}

/**
 * The two-sided 95% critical value of Student's t with `df` degrees of freedom: exact table values up to
 * 30, and beyond that the Cornish-Fisher expansion in 1/df around the normal quantile, whose error there
 * is below 1e-7.
 */
export function studentT975(df: number): number {
  if (!Number.isInteger(df) || df < 1) throw new RangeError("Degrees of freedom must be a positive integer.");
  const tabled = T975[df - 1];
  if (tabled !== undefined) return tabled;
  const z = Z975;
  const z2 = z * z;
  const g1 = ((z2 + 1) * z) / 4;
  const g2 = (((5 * z2 + 16) * z2 + 3) * z) / 96;
  const g3 = ((((3 * z2 + 19) * z2 + 17) * z2 - 15) * z) / 384;
  const g4 = (((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z) / 92160;
  return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4;
}

/** 95% confidence interval of the mean, mean -/+ t_{0.975, n-1} * s / sqrt(n); null below two values. */
export function ci95Mean(values: readonly number[]): MeanInterval | null {
  const s = sampleStdDev(values);
  if (s === null) return null;
  const n = values.length;
  const m = sum(values) / n;
  const half = (studentT975(n - 1) * s) / Math.sqrt(n);
  return { lower: m - half, upper: m + half };
}

/**
 * Count per integer point of the scale min..max, every point present (zero when unused), keyed by the
 * point as a string. Values off the scale or between points belong to no point and are not counted.
 */
export function distribution(values: readonly number[], min: number, max: number): Record<string, number> {
  assertFinite(values);
  if (!Number.isInteger(min) || !Number.isInteger(max) || min > max) {
    throw new RangeError("A distribution needs integer bounds with min <= max.");
  }
  const counts = new Array<number>(max - min + 1).fill(0);
  for (const v of values) {
    if (Number.isInteger(v) && v >= min && v <= max) counts[v - min]!++;
  }
  const out: Record<string, number> = {};
  for (let i = 0; i < counts.length; i++) out[String(min + i)] = counts[i]!;
  return out;
}

/**
 * `ci95Mean` cut to the scale [min, max]. A mean of scores on a scale cannot leave it, so the part of a t-interval
 * past either end says nothing; with few ratings (n = 2 gives t = 12.7) it can be several times the scale's width.
 */
export function ci95MeanOnScale(values: readonly number[], min: number, max: number): ScaleInterval | null {
  const ci = ci95Mean(values);
  if (!ci) return null;
  const lower = Math.max(ci.lower, min);
  const upper = Math.min(ci.upper, max);
  return { lower, upper, clipped: lower !== ci.lower || upper !== ci.upper };
}
