/**
 * The coding step of Krippendorff's alpha: ratings become indices into the sorted distinct values, and each
 * unit its value-count vector, so every metric and every bootstrap resample reads integers, not the caller's
 * nested arrays.
 */

export type AlphaMetric = "nominal" | "ordinal" | "interval" | "ratio";

const METRICS: readonly string[] = ["nominal", "ordinal", "interval", "ratio"];

/** Each unit is the list of values assigned to it by the raters who rated it; missing ratings are absent. */
export type ReliabilityUnits = readonly (readonly number[])[];

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
export interface UnitTypes {
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

export class CodedData {
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

export function codedFor(input: ReliabilityUnits | ReliabilityData, metric: AlphaMetric): CodedData {
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
