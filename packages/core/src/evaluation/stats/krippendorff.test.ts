import { describe, expect, it } from "vitest";
import {
  type AlphaMetric,
  binomialSampler,
  bootstrapAlpha,
  krippendorffAlpha,
  mulberry32,
  prepareReliabilityData,
  type ReliabilityUnits,
} from "./krippendorff";

const METRICS: AlphaMetric[] = ["nominal", "ordinal", "interval", "ratio"];

/** Observer-by-unit rows, as printed in the paper, turned into units; null marks a missing value. */
function byUnit(rows: (number | null)[][]): number[][] {
  const units: number[][] = [];
  for (let u = 0; u < rows[0]!.length; u++) {
    const unit: number[] = [];
    for (const row of rows) {
      const v = row[u];
      if (v !== null && v !== undefined) unit.push(v);
    }
    units.push(unit);
  }
  return units;
}

const letters = (s: string) => [...s].map((c) => "abcde".indexOf(c) + 1);

// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability".
const EXAMPLE_A = byUnit([
  [0, 1, 0, 0, 0, 0, 0, 0, 1, 0],
  [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
]);
const EXAMPLE_B = byUnit([letters("aabbdcccedda"), letters("babbbccceddd")]);
const _ = null;
const EXAMPLE_C = byUnit([
  [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
  [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
]);

/** Many raters with unit-specific true scores on a 7-point scale: realistic, and with many unit types. */
function likertUnits(units: number, raters: number, spread: number, seed: number): number[][] {
  const random = mulberry32(seed);
  const out: number[][] = [];
  for (let u = 0; u < units; u++) {
    const truth = 1 + random() * 6;
    const unit: number[] = [];
    for (let r = 0; r < raters; r++) {
      const noise = (random() + random() + random() - 1.5) * spread;
      unit.push(Math.min(7, Math.max(1, Math.round(truth + noise))));
    }
    out.push(unit);
  }
  return out;
}

function alpha(units: ReliabilityUnits, metric: AlphaMetric): number {
  const value = krippendorffAlpha(units, metric).alpha;
  if (value === null) throw new Error("alpha is undefined");
  return value;
}

describe("krippendorffAlpha: worked examples of Krippendorff (2011)", () => {
  it("A: binary data, two observers", () => {
    const result = krippendorffAlpha(EXAMPLE_A, "nominal");
    expect(result.alpha).toBeCloseTo(0.095, 3);
    expect(result).toMatchObject({ units: 10, values: 20 });
  });

  it("B: nominal data, two observers", () => {
    expect(alpha(EXAMPLE_B, "nominal")).toBeCloseTo(0.692, 3);
  });

  it("C: four observers with missing values, every metric", () => {
    expect(alpha(EXAMPLE_C, "nominal")).toBeCloseTo(0.743, 3);
    expect(alpha(EXAMPLE_C, "ordinal")).toBeCloseTo(0.815, 3);
    expect(alpha(EXAMPLE_C, "interval")).toBeCloseTo(0.849, 3);
    expect(alpha(EXAMPLE_C, "ratio")).toBeCloseTo(0.797, 3);
  });

  it("C: drops the single-value unit and counts n = 40 pairable values", () => {
    expect(krippendorffAlpha(EXAMPLE_C, "nominal")).toMatchObject({ units: 11, values: 40 });
  });

  it("C: matches an explicit coincidence-matrix computation to full precision", () => {
    // Independently computed by building o_ck and delta_ck as full matrices.
    expect(alpha(EXAMPLE_C, "nominal")).toBeCloseTo(0.743421052631579, 12);
    expect(alpha(EXAMPLE_C, "ordinal")).toBeCloseTo(0.8153875037548813, 12);
    expect(alpha(EXAMPLE_C, "interval")).toBeCloseTo(0.8491071428571428, 12);
    expect(alpha(EXAMPLE_C, "ratio")).toBeCloseTo(0.797402774711612, 12);
  });

  it("reports D_o and D_e with alpha = 1 - D_o / D_e", () => {
    const result = krippendorffAlpha(EXAMPLE_C, "nominal");
    // Nominal D_o is the share of disagreeing pairable values: 8 of 40.
    expect(result.observedDisagreement).toBeCloseTo(0.2, 12);
    expect(1 - result.observedDisagreement! / result.expectedDisagreement!).toBeCloseTo(result.alpha!, 12);
  });
});

describe("krippendorffAlpha: properties", () => {
  it("is 1 under perfect agreement, for every metric", () => {
    const units = [
      [1, 1, 1],
      [2, 2],
      [5, 5, 5, 5],
      [3, 3],
    ];
    for (const metric of METRICS) expect(alpha(units, metric)).toBe(1);
  });

  it("ignores single-rater units and empty units, also in the ordinal marginals", () => {
    const padded = [...EXAMPLE_C, [7], [], [1], [9]];
    for (const metric of METRICS) {
      expect(krippendorffAlpha(padded, metric)).toEqual(krippendorffAlpha(EXAMPLE_C, metric));
    }
  });

  it("does not depend on the order of units or of values within a unit", () => {
    const shuffled = [...EXAMPLE_C].reverse().map((unit) => [...unit].reverse());
    for (const metric of METRICS) expect(alpha(shuffled, metric)).toBeCloseTo(alpha(EXAMPLE_C, metric), 12);
  });

  it("ordinal alpha only depends on the order of values", () => {
    const monotone = EXAMPLE_C.map((unit) => unit.map((v) => v ** 3 + 0.5));
    expect(alpha(monotone, "ordinal")).toBeCloseTo(alpha(EXAMPLE_C, "ordinal"), 12);
  });

  it("interval alpha is invariant under affine maps, ratio alpha under scaling", () => {
    const affine = EXAMPLE_C.map((unit) => unit.map((v) => -2.5 * v + 1000));
    expect(alpha(affine, "interval")).toBeCloseTo(alpha(EXAMPLE_C, "interval"), 12);
    const scaled = EXAMPLE_C.map((unit) => unit.map((v) => v * 0.1));
    expect(alpha(scaled, "ratio")).toBeCloseTo(alpha(EXAMPLE_C, "ratio"), 12);
  });

  it("codes values that are not small integers the same way", () => {
    // Non-integers and a domain too wide for the lookup table take the Map path.
    const fractional = EXAMPLE_B.map((unit) => unit.map((v) => v / 3));
    const wide = EXAMPLE_B.map((unit) => unit.map((v) => (v === 5 ? 1e9 : v)));
    expect(alpha(fractional, "nominal")).toBeCloseTo(alpha(EXAMPLE_B, "nominal"), 12);
    expect(alpha(wide, "nominal")).toBeCloseTo(alpha(EXAMPLE_B, "nominal"), 12);
    expect(alpha(wide, "ordinal")).toBeCloseTo(alpha(EXAMPLE_B, "ordinal"), 12);
  });

  it("handles negative values, e.g. side-by-side preferences", () => {
    const shifted = EXAMPLE_C.map((unit) => unit.map((v) => v - 3));
    expect(alpha(shifted, "interval")).toBeCloseTo(alpha(EXAMPLE_C, "interval"), 12);
    expect(alpha(shifted, "ordinal")).toBeCloseTo(alpha(EXAMPLE_C, "ordinal"), 12);
  });

  it("is below 0 when disagreement is systematic", () => {
    expect(
      alpha(
        [
          [1, 2],
          [2, 1],
          [1, 2],
          [2, 1],
        ],
        "nominal",
      ),
    ).toBeLessThan(0);
  });
});

describe("krippendorffAlpha: undefined cases", () => {
  it("has no pairable values without units of two or more values", () => {
    for (const units of [[], [[]], [[1], [2], [3]]]) {
      expect(krippendorffAlpha(units, "interval")).toEqual({
        alpha: null,
        metric: "interval",
        units: 0,
        values: 0,
        observedDisagreement: null,
        expectedDisagreement: null,
        undefinedReason: "no_pairable_values",
      });
    }
  });

  it("has no variation when every pairable value is the same, even if a lone value differs", () => {
    for (const metric of METRICS) {
      expect(krippendorffAlpha([[3, 3], [3, 3, 3], [5]], metric)).toEqual({
        alpha: null,
        metric,
        units: 2,
        values: 5,
        observedDisagreement: 0,
        expectedDisagreement: 0,
        undefinedReason: "no_variation",
      });
    }
  });
});

describe("krippendorffAlpha: input validation", () => {
  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])("rejects %s", (bad) => {
    expect(() =>
      krippendorffAlpha(
        [
          [1, 2],
          [1, bad],
        ],
        "nominal",
      ),
    ).toThrow(RangeError);
    // Also in a unit that would otherwise be ignored.
    expect(() => krippendorffAlpha([[1, 2], [bad]], "nominal")).toThrow(RangeError);
  });

  it("rejects values that are not numbers and units that are not arrays", () => {
    expect(() => krippendorffAlpha([[1, "2" as unknown as number]], "nominal")).toThrow(RangeError);
    expect(() => krippendorffAlpha([3 as unknown as number[]], "nominal")).toThrow(TypeError);
    expect(() => krippendorffAlpha("units" as unknown as number[][], "nominal")).toThrow(TypeError);
  });

  it("rejects negative values for the ratio metric only", () => {
    const units = [[-1, 2], [3, 3], [-4]];
    expect(() => krippendorffAlpha(units, "ratio")).toThrow(RangeError);
    expect(() => krippendorffAlpha(prepareReliabilityData(units), "ratio")).toThrow(RangeError);
    expect(krippendorffAlpha(units, "interval").alpha).not.toBeNull();
  });

  it("rejects unknown metrics", () => {
    expect(() => krippendorffAlpha(EXAMPLE_C, "cosine" as AlphaMetric)).toThrow(RangeError);
  });
});

describe("prepareReliabilityData", () => {
  it("gives the same alpha as raw units, for every metric from one preparation", () => {
    const prepared = prepareReliabilityData(EXAMPLE_C);
    expect(prepared).toMatchObject({ units: 11, values: 40 });
    for (const metric of METRICS) {
      expect(krippendorffAlpha(prepared, metric)).toEqual(krippendorffAlpha(EXAMPLE_C, metric));
    }
  });

  it("gives the same bootstrap interval as raw units", () => {
    const units = likertUnits(300, 4, 2, 3);
    const prepared = prepareReliabilityData(units);
    for (const metric of METRICS) {
      expect(bootstrapAlpha(prepared, metric, { seed: 5 })).toEqual(
        bootstrapAlpha(units, metric, { seed: 5 }),
      );
    }
  });
});

/** Resamples the units themselves: slow but obviously right. */
function naiveBootstrap(units: number[][], metric: AlphaMetric, samples: number, seed: number) {
  const random = mulberry32(seed);
  const pairable = units.filter((unit) => unit.length >= 2);
  const alphas: number[] = [];
  for (let s = 0; s < samples; s++) {
    const resample = pairable.map(() => pairable[Math.floor(random() * pairable.length)]!);
    const value = krippendorffAlpha(resample, metric).alpha;
    if (value !== null) alphas.push(value);
  }
  alphas.sort((a, b) => a - b);
  const at = (q: number) => alphas[Math.round(q * (alphas.length - 1))]!;
  return { lower: at(0.025), upper: at(0.975) };
}

describe("bootstrapAlpha", () => {
  const units = likertUnits(400, 5, 2.5, 11);

  it("is repeatable for a seed and varies with it", () => {
    const first = bootstrapAlpha(units, "ordinal", { seed: 42 });
    expect(bootstrapAlpha(units, "ordinal", { seed: 42 })).toEqual(first);
    expect(bootstrapAlpha(units, "ordinal", { seed: 43 })).not.toEqual(first);
    expect(bootstrapAlpha(units, "ordinal")).toEqual(bootstrapAlpha(units, "ordinal"));
  });

  it("brackets alpha with a narrow interval on a sensible data set", () => {
    for (const metric of METRICS) {
      const point = alpha(units, metric);
      const interval = bootstrapAlpha(units, metric, { seed: 7 })!;
      expect(interval.samples).toBe(1000);
      expect(interval.lower).toBeLessThan(point);
      expect(interval.upper).toBeGreaterThan(point);
      expect(interval.upper - interval.lower).toBeLessThan(0.15);
    }
  });

  it("narrows with the level and honours the sample count", () => {
    const wide = bootstrapAlpha(units, "interval", { seed: 1, level: 0.99, samples: 500 })!;
    const narrow = bootstrapAlpha(units, "interval", { seed: 1, level: 0.8, samples: 500 })!;
    expect(wide.samples).toBe(500);
    expect(narrow.lower).toBeGreaterThan(wide.lower);
    expect(narrow.upper).toBeLessThan(wide.upper);
  });

  it("matches resampling the units one by one", () => {
    // Few units and many unit types exercise both the binomial chain and the pool of rare types.
    const small = likertUnits(150, 4, 2.5, 17);
    for (const metric of METRICS) {
      const fast = bootstrapAlpha(small, metric, { seed: 3, samples: 3000 })!;
      const slow = naiveBootstrap(small, metric, 3000, 4);
      // The intervals are about 0.12 wide; Monte Carlo noise between the two is a few thousandths.
      expect(Math.abs(fast.lower - slow.lower)).toBeLessThan(0.01);
      expect(Math.abs(fast.upper - slow.upper)).toBeLessThan(0.01);
    }
  });

  it("reaches 1 when enough resamples agree perfectly (Example C)", () => {
    // 8 of the 11 pairable units agree perfectly, so about (8/11)^11 = 3% of resamples have alpha 1.
    const interval = bootstrapAlpha(EXAMPLE_C, "nominal", { seed: 2, samples: 5000 })!;
    expect(interval.upper).toBe(1);
    expect(interval.lower).toBeGreaterThan(0.3);
    expect(interval.lower).toBeLessThan(0.55);
  });

  it("leaves out resamples without variation", () => {
    // About 7% of resamples draw only [1, 1]s or only [2, 2]s, which leaves nothing to disagree about.
    const interval = bootstrapAlpha(
      [
        [1, 1],
        [2, 2],
        [1, 2],
      ],
      "nominal",
      { seed: 9, samples: 200 },
    )!;
    expect(interval.samples).toBeLessThan(200);
    expect(interval.samples).toBeGreaterThan(100);
  });

  it("is null when alpha is undefined", () => {
    expect(bootstrapAlpha([], "nominal")).toBeNull();
    expect(bootstrapAlpha([[1], [2]], "nominal")).toBeNull();
    expect(
      bootstrapAlpha(
        [
          [4, 4],
          [4, 4, 4],
        ],
        "interval",
      ),
    ).toBeNull();
  });

  it("validates its options", () => {
    expect(() => bootstrapAlpha(units, "nominal", { samples: 0 })).toThrow(RangeError);
    expect(() => bootstrapAlpha(units, "nominal", { samples: 1.5 })).toThrow(RangeError);
    expect(() => bootstrapAlpha(units, "nominal", { level: 1 })).toThrow(RangeError);
    expect(() => bootstrapAlpha(units, "nominal", { seed: Number.NaN })).toThrow(RangeError);
    expect(() => bootstrapAlpha([[1, Number.NaN]], "nominal")).toThrow(RangeError);
  });
});

describe("mulberry32", () => {
  it("is deterministic and stays inside (0, 1)", () => {
    const a = mulberry32(123);
    const b = mulberry32(123);
    let same = true;
    let inside = true;
    for (let i = 0; i < 10_000; i++) {
      const x = a();
      same &&= x === b();
      inside &&= x > 0 && x < 1;
    }
    expect(same).toBe(true);
    expect(inside).toBe(true);
  });
});

describe("binomialSampler", () => {
  const cases: [number, number][] = [
    [5, 0.3], // inversion
    [40, 0.2], // inversion, n * p just under 10
    [60, 0.25], // transformed rejection
    [20_000, 0.37], // transformed rejection, large n
    [200, 0.9], // by symmetry
  ];
  it.each(cases)("Binomial(%i, %f) has the right mean and variance", (n, p) => {
    const draw = binomialSampler(mulberry32(n), 20_000);
    const draws = 40_000;
    let total = 0;
    let squares = 0;
    let valid = true;
    for (let i = 0; i < draws; i++) {
      const k = draw(n, p);
      valid &&= Number.isInteger(k) && k >= 0 && k <= n;
      total += k;
      squares += k * k;
    }
    expect(valid).toBe(true);
    const mean = total / draws;
    const variance = squares / draws - mean * mean;
    const expectedVariance = n * p * (1 - p);
    // Five standard errors of the mean; the variance within 5%.
    expect(Math.abs(mean - n * p)).toBeLessThan(5 * Math.sqrt(expectedVariance / draws));
    expect(Math.abs(variance / expectedVariance - 1)).toBeLessThan(0.05);
  });

  it("handles the degenerate cases and its bound", () => {
    const draw = binomialSampler(mulberry32(1), 10);
    expect(draw(0, 0.5)).toBe(0);
    expect(draw(10, 0)).toBe(0);
    expect(draw(10, 1)).toBe(10);
    expect(() => draw(11, 0.5)).toThrow(RangeError);
  });
});
