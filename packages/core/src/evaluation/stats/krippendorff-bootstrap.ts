import {
  type AlphaMetric,
  type CodedData,
  codedFor,
  type ReliabilityData,
  type ReliabilityUnits,
  type UnitTypes,
} from "./krippendorff-coding";
import { distinctPresent, expectedSum, makeDelta } from "./krippendorff-distance";
import { binomialSampler, mulberry32 } from "./sampling";

export interface BootstrapAlphaOptions {
  /** Number of resamples; default 1000. */
  samples?: number;
  /** Seed of the generator; the same seed and data always give the same interval. Default 1. */
  seed?: number;
  /** Coverage of the percentile interval, in (0, 1); default 0.95. */
  level?: number;
}

export interface AlphaInterval {
  lower: number;
  upper: number;
  /** Resamples with a defined alpha, i.e. the ones the interval is computed from. */
  samples: number;
}

/**
 * A binomial draw costs about as much as a dozen direct unit draws, so types with fewer units than this
 * are cheaper to resample unit by unit.
 */
const POOL_BELOW = 12;

function groupUnits(data: CodedData): UnitTypes {
  const { unitOffsets, codes, multiplicities, unitSizes, domain } = data;
  let largestUnit = 0;
  for (const size of unitSizes) if (size > largestUnit) largestUnit = size;
  // A value-count vector read as digits in base (largest unit + 1) is a unique number, as long as it
  // stays exactly representable; string keys are the fallback for wide domains.
  const radix = largestUnit + 1;
  const numericKeys = domain.length * Math.log2(radix) <= 52;
  const place = new Float64Array(domain.length);
  for (let c = 0, weight = 1; c < domain.length; c++, weight *= radix) place[c] = weight;

  const index = new Map<number | string, number>();
  const representative: number[] = [];
  const frequency: number[] = [];
  for (let u = 0; u < data.units; u++) {
    let key: number | string;
    if (numericKeys) {
      key = 0;
      for (let i = unitOffsets[u]!; i < unitOffsets[u + 1]!; i++)
        key += multiplicities[i]! * place[codes[i]!]!;
    } else {
      key = "";
      for (let i = unitOffsets[u]!; i < unitOffsets[u + 1]!; i++) key += `${codes[i]}x${multiplicities[i]},`;
    }
    const t = index.get(key);
    if (t === undefined) {
      index.set(key, representative.length);
      representative.push(u);
      frequency.push(1);
    } else {
      frequency[t]!++;
    }
  }
  // Drawing the largest types first lets the sequential multinomial finish early; the sort is stable,
  // so the order (and with it every resample) is a function of the data alone.
  const order = representative.map((_, t) => t).sort((x, y) => frequency[y]! - frequency[x]!);

  const count = order.length;
  const typeFrequency = new Int32Array(count);
  const size = new Int32Array(count);
  const unanimous = new Int32Array(count);
  const offsets = new Int32Array(count + 1);
  const typeCodes = new Int32Array(data.codes.length);
  const typeMultiplicities = new Int32Array(data.codes.length);
  const pairOffsets = new Int32Array(count + 1);
  const pairIds: number[] = [];
  const pairWeight: number[] = [];
  const pairIndex = new Map<number, number>();
  const pairC: number[] = [];
  const pairK: number[] = [];
  let out = 0;
  for (let t = 0; t < count; t++) {
    const source = order[t]!;
    const u = representative[source]!;
    const from = unitOffsets[u]!;
    const to = unitOffsets[u + 1]!;
    typeFrequency[t] = frequency[source]!;
    size[t] = unitSizes[u]!;
    unanimous[t] = to - from === 1 ? codes[from]! : -1;
    offsets[t] = out;
    pairOffsets[t] = pairIds.length;
    for (let i = from; i < to; i++) {
      typeCodes[out] = codes[i]!;
      typeMultiplicities[out] = multiplicities[i]!;
      out++;
      for (let j = i + 1; j < to; j++) {
        const key = codes[i]! * domain.length + codes[j]!;
        let id = pairIndex.get(key);
        if (id === undefined) {
          id = pairC.length;
          pairIndex.set(key, id);
          pairC.push(codes[i]!);
          pairK.push(codes[j]!);
        }
        pairIds.push(id);
        pairWeight.push((2 * multiplicities[i]! * multiplicities[j]!) / (unitSizes[u]! - 1));
      }
    }
  }
  offsets[count] = out;
  pairOffsets[count] = pairIds.length;

  let poolStart = count;
  while (poolStart > 0 && typeFrequency[poolStart - 1]! < POOL_BELOW) poolStart--;
  let poolSize = 0;
  for (let t = poolStart; t < count; t++) poolSize += typeFrequency[t]!;
  const pool = new Int32Array(poolSize);
  for (let t = poolStart, i = 0; t < count; t++) {
    pool.fill(t, i, i + typeFrequency[t]!);
    i += typeFrequency[t]!;
  }
  return {
    count,
    frequency: typeFrequency,
    poolStart,
    pool,
    size,
    unanimous,
    offsets,
    codes: typeCodes.subarray(0, out),
    multiplicities: typeMultiplicities.subarray(0, out),
    pairOffsets,
    pairIds: Int32Array.from(pairIds),
    pairWeight: Float64Array.from(pairWeight),
    pairC: Int32Array.from(pairC),
    pairK: Int32Array.from(pairK),
  };
}

/** Type-7 (linear interpolation) quantile of ascending data. */
function quantile(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const below = sorted[lo]!;
  const above = sorted[Math.min(lo + 1, sorted.length - 1)]!;
  return below + (h - lo) * (above - below);
}

/**
 * Percentile bootstrap interval for alpha, resampling pairable units with replacement. Deterministic for
 * a given seed. Returns null when alpha itself is undefined, or when no resample has a defined alpha;
 * resamples without variation are left out, and `samples` says how many remained.
 *
 * A resample only matters through how many units of each distinct value-count vector ("type") it drew.
 * Those counts are multinomial, so a resample costs about one binomial draw and one pass over
 * precomputed contributions per type, largely independent of the number of units. Pass data from
 * `prepareReliabilityData` to share the coding and the grouping with other calls on the same units.
 */
export function bootstrapAlpha(
  input: ReliabilityUnits | ReliabilityData,
  metric: AlphaMetric,
  options: BootstrapAlphaOptions = {},
): AlphaInterval | null {
  const samples = options.samples ?? 1000;
  const level = options.level ?? 0.95;
  const seed = options.seed ?? 1;
  if (!Number.isInteger(samples) || samples < 1) {
    throw new RangeError("Bootstrap samples must be a positive integer.");
  }
  if (!(level > 0 && level < 1)) throw new RangeError("Bootstrap level must lie strictly between 0 and 1.");
  if (!Number.isFinite(seed)) throw new RangeError("Bootstrap seed must be a finite number.");

  const data = codedFor(input, metric);
  if (data.units === 0 || distinctPresent(data.marginals) < 2) return null;

  data.types ??= groupUnits(data);
  const types = data.types;
  const { domain } = data;
  const { frequency, poolStart, pool, size, unanimous, offsets, codes, multiplicities } = types;
  const { pairOffsets, pairIds, pairWeight, pairC, pairK } = types;
  const marginals = new Float64Array(domain.length);
  const cumulative = new Float64Array(domain.length + 1);
  const pairTotals = new Float64Array(pairC.length);
  const drawn = new Int32Array(types.count);

  // Outside the ordinal metric delta does not depend on the marginals, so a type's observed
  // disagreement is fixed and only needs weighting by how often the type was drawn.
  const fixedDelta = metric === "ordinal" ? null : makeDelta(metric, domain, data.marginals, cumulative);
  const typeObserved = new Float64Array(types.count);
  if (fixedDelta !== null) {
    for (let t = 0; t < types.count; t++) {
      let sum = 0;
      for (let p = pairOffsets[t]!; p < pairOffsets[t + 1]!; p++) {
        const id = pairIds[p]!;
        sum += pairWeight[p]! * fixedDelta(pairC[id]!, pairK[id]!);
      }
      typeObserved[t] = sum;
    }
  }
  // The interval metric's expected disagreement only needs the first two moments of the values, which
  // add up over types without going through the marginals. Centring on the full data's mean keeps the
  // variance formula free of cancellation.
  const typeFirst = new Float64Array(types.count);
  const typeSecond = new Float64Array(types.count);
  if (metric === "interval") {
    let total = 0;
    for (let c = 0; c < domain.length; c++) total += data.marginals[c]! * domain[c]!;
    const centre = total / data.values;
    for (let t = 0; t < types.count; t++) {
      for (let i = offsets[t]!; i < offsets[t + 1]!; i++) {
        const d = domain[codes[i]!]! - centre;
        typeFirst[t]! += multiplicities[i]! * d;
        typeSecond[t]! += multiplicities[i]! * d * d;
      }
    }
  }
  // Units of types t.. (suffix sums), for the conditional binomials of the multinomial chain.
  const unitsFrom = new Float64Array(types.count + 1);
  for (let t = types.count - 1; t >= 0; t--) unitsFrom[t] = unitsFrom[t + 1]! + frequency[t]!;

  const random = mulberry32(seed);
  const binomial = binomialSampler(random, data.units);
  const alphas = new Float64Array(samples);
  let defined = 0;
  for (let s = 0; s < samples; s++) {
    // Multinomial type counts: a chain of conditional binomials over the common types, then whatever
    // is left spread over the rare ones by drawing their units directly, which is the same
    // distribution.
    let left = data.units;
    for (let t = 0; t < poolStart; t++) {
      const k = left === 0 ? 0 : binomial(left, frequency[t]! / unitsFrom[t]!);
      drawn[t] = k;
      left -= k;
    }
    drawn.fill(0, poolStart);
    for (let i = 0; i < left; i++) drawn[pool[Math.floor(random() * pool.length)]!]!++;

    let n = 0;
    let observed = 0;
    let expected: number;
    if (metric === "interval") {
      let first = 0;
      let second = 0;
      let only = -1;
      let varied = false;
      for (let t = 0; t < types.count; t++) {
        const k = drawn[t]!;
        if (k === 0) continue;
        n += k * size[t]!;
        first += k * typeFirst[t]!;
        second += k * typeSecond[t]!;
        observed += k * typeObserved[t]!;
        if (!varied) {
          const code = unanimous[t]!;
          if (code < 0 || (only >= 0 && code !== only)) varied = true;
          else only = code;
        }
      }
      if (!varied) continue;
      expected = 2 * n * (second - (first * first) / n);
    } else {
      marginals.fill(0);
      if (fixedDelta === null) pairTotals.fill(0);
      for (let t = 0; t < types.count; t++) {
        const k = drawn[t]!;
        if (k === 0) continue;
        for (let i = offsets[t]!; i < offsets[t + 1]!; i++) marginals[codes[i]!]! += k * multiplicities[i]!;
        if (fixedDelta !== null) {
          observed += k * typeObserved[t]!;
        } else {
          for (let p = pairOffsets[t]!; p < pairOffsets[t + 1]!; p++) {
            pairTotals[pairIds[p]!]! += k * pairWeight[p]!;
          }
        }
      }
      if (distinctPresent(marginals) < 2) continue;
      const delta = fixedDelta ?? makeDelta(metric, domain, marginals, cumulative);
      if (fixedDelta === null) {
        for (let id = 0; id < pairTotals.length; id++) {
          const total = pairTotals[id]!;
          if (total !== 0) observed += total * delta(pairC[id]!, pairK[id]!);
        }
      }
      for (const m of marginals) n += m;
      expected = expectedSum(metric, domain, marginals, n, delta);
    }
    alphas[defined++] = 1 - ((n - 1) * observed) / expected;
  }
  if (defined === 0) return null;

  const sorted = alphas.subarray(0, defined).sort();
  const tail = (1 - level) / 2;
  return { lower: quantile(sorted, tail), upper: quantile(sorted, 1 - tail), samples: defined };
}
