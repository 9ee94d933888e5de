/**
 * Krippendorff's alpha, following the coincidence-matrix formulation of Krippendorff (2011),
 * "Computing Krippendorff's Alpha-Reliability":
 *
 *   alpha = 1 - (n - 1) * sum_ck o_ck * delta_ck / sum_ck n_c * n_k * delta_ck
 *
 * Ratings live in small domains (rating scales), so values are coded as indices into the sorted set of
 * distinct values and each unit is reduced to its value-count vector. The coincidence matrix is never
 * materialised: a unit holding m_c copies of c among m_u values contributes m_c * m_k / (m_u - 1) to
 * o_ck (c != k), and the marginal n_c is simply the number of c's in pairable units.
 */

import {
  type AlphaMetric,
  type CodedData,
  codedFor,
  type ReliabilityData,
  type ReliabilityUnits,
} from "./krippendorff-coding";
import { distinctPresent, expectedSum, makeDelta } from "./krippendorff-distance";

export { type AlphaInterval, type BootstrapAlphaOptions, bootstrapAlpha } from "./krippendorff-bootstrap";
export {
  type AlphaMetric,
  prepareReliabilityData,
  type ReliabilityData,
  type ReliabilityUnits,
} from "./krippendorff-coding";
export { binomialSampler, mulberry32 } from "./sampling";

export type AlphaUndefinedReason = "no_pairable_values" | "no_variation";

export interface AlphaResult {
  /** null when alpha is undefined; see `undefinedReason`. */
  alpha: number | null;
  metric: AlphaMetric;
  /** Units holding at least two values; only those carry information about agreement. */
  units: number;
  /** n: the number of values in pairable units. */
  values: number;
  /** D_o = sum_ck o_ck * delta_ck / n. */
  observedDisagreement: number | null;
  /** D_e = sum_ck n_c * n_k * delta_ck / (n * (n - 1)). */
  expectedDisagreement: number | null;
  undefinedReason?: AlphaUndefinedReason;
}

function alphaOf(data: CodedData, metric: AlphaMetric): AlphaResult {
  const n = data.values;
  if (data.units === 0) {
    return {
      alpha: null,
      metric,
      units: 0,
      values: 0,
      observedDisagreement: null,
      expectedDisagreement: null,
      undefinedReason: "no_pairable_values",
    };
  }
  // With a single value in use every delta is 0, so D_o = D_e = 0 and alpha = 1 - 0/0. Reporting 1
  // ("perfect agreement") would overstate what data without variation can show, and 0 would understate
  // it, so alpha stays undefined and the caller decides how to present it.
  if (distinctPresent(data.marginals) < 2) {
    return {
      alpha: null,
      metric,
      units: data.units,
      values: n,
      observedDisagreement: 0,
      expectedDisagreement: 0,
      undefinedReason: "no_variation",
    };
  }
  const delta = makeDelta(metric, data.domain, data.marginals, new Float64Array(data.domain.length + 1));
  const { unitOffsets, codes, multiplicities, unitSizes } = data;
  let observed = 0;
  for (let u = 0; u < data.units; u++) {
    const from = unitOffsets[u]!;
    const to = unitOffsets[u + 1]!;
    if (to - from < 2) continue;
    let unitSum = 0;
    for (let i = from; i < to; i++) {
      for (let j = i + 1; j < to; j++) {
        unitSum += multiplicities[i]! * multiplicities[j]! * delta(codes[i]!, codes[j]!);
      }
    }
    // Both orders (c, k) and (k, c) of the coincidence matrix.
    observed += (2 * unitSum) / (unitSizes[u]! - 1);
  }
  const expected = expectedSum(metric, data.domain, data.marginals, n, delta);
  return {
    alpha: 1 - ((n - 1) * observed) / expected,
    metric,
    units: data.units,
    values: n,
    observedDisagreement: observed / n,
    expectedDisagreement: expected / (n * (n - 1)),
  };
}

/**
 * Krippendorff's alpha. Accepts raw units (see `ReliabilityUnits`) or data from
 * `prepareReliabilityData`. Throws a RangeError on values that are not finite numbers, and on negative
 * values for the ratio metric.
 */
export function krippendorffAlpha(
  input: ReliabilityUnits | ReliabilityData,
  metric: AlphaMetric,
): AlphaResult {
  return alphaOf(codedFor(input, metric), metric);
}
