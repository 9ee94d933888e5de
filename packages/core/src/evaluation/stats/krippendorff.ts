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

export type AlphaMetric = "nominal" | "ordinal" | "interval" | "ratio";

const METRICS: readonly string[] = ["nominal", "ordinal", "interval", "ratio"];

/** Each unit is the list of values assigned to it by the raters who rated it; missing ratings are absent. */
export type ReliabilityUnits = readonly (readonly number[])[];

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

declare const reliabilityDataBrand: unique symbol;

/**
 * Units validated and coded once, so alpha for several metrics and its bootstrap interval can be computed
 * without re-reading the ratings. Obtained from `prepareReliabilityData`.
 */
export interface ReliabilityData {
  readonly [reliabilityDataBrand]: true;
  /** Pairable units (at least two values). */
  readonly units: number;
  /** Values in pairable units. */
  readonly values: number;
}

/** Units grouped by identical value-count vector; every unit of a type contributes the same. */
interface UnitTypes {
  count: number;
  /** Units per type, descending. */
  frequency: Int32Array;
  /** Types from here on are rare enough to be resampled unit by unit from `pool`. */
  poolStart: number;
  /** The units of the rare types, as type indices. */
  pool: Int32Array;
  /** Values per unit. */
  size: Int32Array;
  /** The code every value of the type has, or -1 when its raters disagree. */
  unanimous: Int32Array;
  /** Type t's value counts are codes/multiplicities[offsets[t] .. offsets[t + 1]). */
  offsets: Int32Array;
  codes: Int32Array;
  multiplicities: Int32Array;
  /** Type t's pairs of distinct codes are pairIds/pairWeight[pairOffsets[t] .. pairOffsets[t + 1]). */
  pairOffsets: Int32Array;
  /** Index into the data's distinct code pairs, pairC[i] < pairK[i]. */
  pairIds: Int32Array;
  /** A pair's share of sum_ck o_ck for one unit, both orders included. */
  pairWeight: Float64Array;
  pairC: Int32Array;
  pairK: Int32Array;
}

class CodedData {
  declare readonly [reliabilityDataBrand]: true;
  /** Grouping is only needed by the bootstrap, and reused by every bootstrap on the same data. */
  types: UnitTypes | undefined;

  constructor(
    readonly units: number,
    readonly values: number,
    /** Distinct values seen in pairable units, ascending. */
    readonly domain: Float64Array,
    /** n_c per code. */
    readonly marginals: Float64Array,
    /** Unit u's distinct codes are codes[unitOffsets[u] .. unitOffsets[u + 1]), ascending. */
    readonly unitOffsets: Int32Array,
    readonly codes: Int32Array,
    /** How often the matching code occurs in its unit. */
    readonly multiplicities: Int32Array,
    readonly unitSizes: Int32Array,
    /** Over all values, single-rater units included, so the ratio metric can reject any negative one. */
    readonly smallestValue: number,
  ) {}
}

/** Integer-valued domains up to this width are coded through a lookup table instead of a Map. */
const MAX_DENSE_RANGE = 1 << 16;

function encode(units: ReliabilityUnits): CodedData {
  let capacity = 0;
  for (let u = 0; u < units.length; u++) {
    const unit = units[u];
    if (!Array.isArray(unit)) throw new TypeError(`Unit ${u} must be an array of values.`);
    if (unit.length >= 2) capacity += unit.length;
  }

  // The only pass over the caller's nested arrays: validate everything, copy what is pairable.
  const raw = new Float64Array(capacity);
  const sizes = new Int32Array(units.length);
  let pairableUnits = 0;
  let pairableValues = 0;
  let smallest = Number.POSITIVE_INFINITY;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let integral = true;
  for (let u = 0; u < units.length; u++) {
    const unit = units[u]!;
    // A value nobody else rated in the same unit cannot be paired, so single-rater units drop out
    // entirely, including from the marginals the ordinal metric is built on.
    const pairable = unit.length >= 2;
    for (let i = 0; i < unit.length; i++) {
      const v = unit[i];
      if (typeof v !== "number" || !Number.isFinite(v)) {
        throw new RangeError(`Unit ${u} holds a value that is not a finite number (${String(v)}).`);
      }
      if (v < smallest) smallest = v;
      if (!pairable) continue;
      raw[pairableValues++] = v;
      if (v < min) min = v;
      if (v > max) max = v;
      if (integral && !Number.isInteger(v)) integral = false;
    }
    if (pairable) sizes[pairableUnits++] = unit.length;
  }

  const flat = new Int32Array(pairableValues);
  let domain: Float64Array;
  if (pairableValues === 0) {
    domain = new Float64Array(0);
  } else if (integral && max - min < MAX_DENSE_RANGE) {
    const lookup = new Int32Array(max - min + 1);
    for (let i = 0; i < pairableValues; i++) {
      const offset = (raw[i]! - min) | 0;
      flat[i] = offset;
      lookup[offset] = 1;
    }
    let size = 0;
    for (let i = 0; i < lookup.length; i++) size += lookup[i]!;
    domain = new Float64Array(size);
    size = 0;
    for (let i = 0; i < lookup.length; i++) {
      if (lookup[i] === 1) {
        domain[size] = i + min;
        lookup[i] = size++;
      }
    }
    for (let i = 0; i < pairableValues; i++) flat[i] = lookup[flat[i]!]!;
  } else {
    const sorted = raw.slice().sort();
    const codeOf = new Map<number, number>();
    const distinct: number[] = [];
    for (const v of sorted) {
      if (!codeOf.has(v)) {
        codeOf.set(v, distinct.length);
        distinct.push(v);
      }
    }
    domain = Float64Array.from(distinct);
    for (let i = 0; i < pairableValues; i++) flat[i] = codeOf.get(raw[i]!)!;
  }

  const marginals = new Float64Array(domain.length);
  const unitOffsets = new Int32Array(pairableUnits + 1);
  const unitSizes = sizes.subarray(0, pairableUnits);
  const codes = new Int32Array(pairableValues);
  const multiplicities = new Int32Array(pairableValues);
  let start = 0;
  let out = 0;
  for (let u = 0; u < pairableUnits; u++) {
    const end = start + unitSizes[u]!;
    // Units are a handful of values, where insertion sort beats anything fancier.
    for (let i = start + 1; i < end; i++) {
      const code = flat[i]!;
      let j = i - 1;
      while (j >= start && flat[j]! > code) {
        flat[j + 1] = flat[j]!;
        j--;
      }
      flat[j + 1] = code;
    }
    unitOffsets[u] = out;
    for (let i = start; i < end; i++) {
      const code = flat[i]!;
      marginals[code]!++;
      if (i > start && flat[i - 1] === code) {
        multiplicities[out - 1]!++;
      } else {
        codes[out] = code;
        multiplicities[out] = 1;
        out++;
      }
    }
    start = end;
  }
  unitOffsets[pairableUnits] = out;

  return new CodedData(
    pairableUnits,
    pairableValues,
    domain,
    marginals,
    unitOffsets,
    codes.subarray(0, out),
    multiplicities.subarray(0, out),
    unitSizes,
    smallest,
  );
}

/**
 * Validates and codes reliability data for repeated use. Throws a RangeError on values that are not
 * finite numbers.
 */
export function prepareReliabilityData(units: ReliabilityUnits): ReliabilityData {
  if (!Array.isArray(units)) throw new TypeError("Reliability data must be an array of units.");
  return encode(units);
}

function codedFor(input: ReliabilityUnits | ReliabilityData, metric: AlphaMetric): CodedData {
  if (!METRICS.includes(metric)) {
    throw new RangeError(`Unknown alpha metric "${String(metric)}".`);
  }
  let data: CodedData;
  if (input instanceof CodedData) data = input;
  else if (Array.isArray(input)) data = encode(input);
  else throw new TypeError("Reliability data must be an array of units or prepared reliability data.");
  // (c - k) / (c + k) only measures distance between non-negative magnitudes.
  if (metric === "ratio" && data.smallestValue < 0) {
    throw new RangeError(`The ratio metric needs non-negative values; found ${data.smallestValue}.`);
  }
  return data;
}

type Delta = (c: number, k: number) => number;

/**
 * delta_ck^2 between codes c < k. The ordinal metric depends on the marginals, so it is rebuilt for
 * every bootstrap resample; `cumulative` is scratch space of length domain.length + 1.
 */
function makeDelta(
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
function expectedSum(
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

function distinctPresent(marginals: Float64Array): number {
  let present = 0;
  for (const m of marginals) if (m > 0) present++;
  return present;
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

/** mulberry32: a tiny, fast 32-bit generator; returns floats in the open interval (0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    // Half-step offset keeps 0 out, which the binomial sampler's logarithms rely on.
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
}

/** Inverse transform, one uniform per draw; cost O(n * p), meant for n * p < 10. */
function binomialInversion(n: number, p: number, random: () => number): number {
  const q = 1 - p;
  const s = p / q;
  const a = (n + 1) * s;
  // n * p < 10 and p <= 0.5 keep q^n above 1e-6, far from underflow.
  const p0 = Math.exp(n * Math.log1p(-p));
  for (;;) {
    let u = random();
    let pk = p0;
    let k = 0;
    while (u > pk && k <= n) {
      u -= pk;
      k++;
      pk *= a / k - s;
    }
    // Past n only rounding in the far tail can have left u positive; draw again.
    if (k <= n) return k;
  }
}

/**
 * Hörmann (1993), "The generation of binomial random variates": transformed rejection with squeeze
 * (BTRS), O(1) expected cost for n * p >= 10 and p <= 0.5. Exact log-factorials stand in for the
 * paper's Stirling series.
 */
function binomialBtrs(n: number, p: number, random: () => number, logFactorial: Float64Array): number {
  const q = 1 - p;
  const spq = Math.sqrt(n * p * q);
  const b = 1.15 + 2.53 * spq;
  const a = -0.0873 + 0.0248 * b + 0.01 * p;
  const c = n * p + 0.5;
  const vr = 0.92 - 4.2 / b;
  const m = Math.floor((n + 1) * p);
  let alpha = 0;
  let logRatio = 0;
  let logModeTerm = Number.NaN;
  for (;;) {
    const u = random() - 0.5;
    const v = random();
    const us = 0.5 - Math.abs(u);
    const k = Math.floor(((2 * a) / us + b) * u + c);
    if (k < 0 || k > n) continue;
    if (us >= 0.07 && v <= vr) return k;
    if (Number.isNaN(logModeTerm)) {
      // Only needed outside the squeeze, which most draws never leave.
      alpha = (2.83 + 5.1 / b) * spq;
      logRatio = Math.log(p / q);
      logModeTerm = logFactorial[m]! + logFactorial[n - m]! - m * logRatio;
    }
    // log(f(k) / f(m)) of the binomial pmf.
    const bound = logModeTerm - logFactorial[k]! - logFactorial[n - k]! + k * logRatio;
    if (Math.log((v * alpha) / (a / (us * us) + b)) <= bound) return k;
  }
}

/**
 * Exact Binomial(n, p) draws for integers 0 <= n <= maxTrials, from uniforms in (0, 1). The table of
 * log-factorials costs O(maxTrials) once and keeps the rejection test down to one logarithm.
 */
export function binomialSampler(random: () => number, maxTrials: number): (n: number, p: number) => number {
  const logFactorial = new Float64Array(maxTrials + 1);
  for (let i = 2; i <= maxTrials; i++) logFactorial[i] = logFactorial[i - 1]! + Math.log(i);
  const draw = (n: number, p: number): number => {
    if (n <= 0 || p <= 0) return 0;
    if (p >= 1) return n;
    if (n > maxTrials) throw new RangeError(`Binomial sampler was set up for at most ${maxTrials} trials.`);
    if (p > 0.5) return n - draw(n, 1 - p);
    return n * p < 10 ? binomialInversion(n, p, random) : binomialBtrs(n, p, random, logFactorial);
  };
  return draw;
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
