import type { AlphaMetric } from "./krippendorff-coding";

export type Delta = (c: number, k: number) => number;

/**
 * delta_ck^2 between codes c < k. The ordinal metric depends on the marginals, so it is rebuilt for
 * every bootstrap resample; `cumulative` is scratch space of length domain.length + 1.
 */
export function makeDelta(
  metric: AlphaMetric,
  domain: Float64Array,
  marginals: Float64Array,
  cumulative: Float64Array,
): Delta {
  switch (metric) {
    case "nominal":
      return () => 1;
    case "interval":
      return (c, k) => {
        const d = domain[c]! - domain[k]!;
        return d * d;
      };
    case "ratio":
      return (c, k) => {
        const vc = domain[c]!;
        const vk = domain[k]!;
        const d = (vc - vk) / (vc + vk);
        return d * d;
      };
    case "ordinal": {
      cumulative[0] = 0;
      for (let g = 0; g < marginals.length; g++) cumulative[g + 1] = cumulative[g]! + marginals[g]!;
      return (c, k) => {
        const d = cumulative[k + 1]! - cumulative[c]! - (marginals[c]! + marginals[k]!) / 2;
        return d * d;
      };
    }
  }
}

/** sum_ck n_c * n_k * delta_ck over all ordered pairs. */
export function expectedSum(
  metric: AlphaMetric,
  domain: Float64Array,
  marginals: Float64Array,
  n: number,
  delta: Delta,
): number {
  if (metric === "nominal") {
    let squares = 0;
    for (const m of marginals) squares += m * m;
    return n * n - squares;
  }
  if (metric === "interval") {
    // sum_ck n_c n_k (c - k)^2 = 2n * sum_c n_c (c - mean)^2: linear in the domain size, and centring
    // avoids the cancellation of the raw-moment form.
    let total = 0;
    for (let c = 0; c < domain.length; c++) total += marginals[c]! * domain[c]!;
    const mean = total / n;
    let squares = 0;
    for (let c = 0; c < domain.length; c++) {
      const d = domain[c]! - mean;
      squares += marginals[c]! * d * d;
    }
    return 2 * n * squares;
  }
  let sum = 0;
  for (let c = 0; c < domain.length; c++) {
    const nc = marginals[c]!;
    if (nc === 0) continue;
    for (let k = c + 1; k < domain.length; k++) {
      const nk = marginals[k]!;
      if (nk !== 0) sum += nc * nk * delta(c, k);
    }
  }
  return 2 * sum;
}

export function distinctPresent(marginals: Float64Array): number {
  let present = 0;
  for (const m of marginals) if (m > 0) present++;
  return present;
}
