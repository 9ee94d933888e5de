import { describe, expect, it } from "vitest";
import { ci95Mean, distribution, mean, sampleStdDev, studentT975 } from "./descriptive";

describe("mean", () => {
  it("averages", () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    expect(mean([-3, 3, 0])).toBe(0);
    expect(mean([7])).toBe(7);
  });

  it("is null without values", () => {
    expect(mean([])).toBeNull();
  });
});

describe("sampleStdDev", () => {
  it("divides by n - 1", () => {
    // Squared deviations from the mean 5 sum to 32: population sd 2, sample sd sqrt(32 / 7).
    expect(sampleStdDev([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(Math.sqrt(32 / 7), 14);
    expect(sampleStdDev([1, 2, 3])).toBe(1);
    expect(sampleStdDev([4, 4, 4])).toBe(0);
  });

  it("keeps precision far from zero", () => {
    expect(sampleStdDev([1e9 + 1, 1e9 + 2, 1e9 + 3])).toBeCloseTo(1, 9);
  });

  it("is null below two values", () => {
    expect(sampleStdDev([])).toBeNull();
    expect(sampleStdDev([3])).toBeNull();
  });
});

describe("studentT975", () => {
  it("matches published two-sided 95% critical values", () => {
    expect(studentT975(1)).toBeCloseTo(12.7062, 4);
    expect(studentT975(2)).toBeCloseTo(4.3027, 4);
    expect(studentT975(7)).toBeCloseTo(2.3646, 4);
    expect(studentT975(10)).toBeCloseTo(2.2281, 4);
    expect(studentT975(30)).toBeCloseTo(2.0423, 4);
  });

  it("is accurate past the table", () => {
    expect(studentT975(31)).toBeCloseTo(2.039513446396408, 6);
    expect(studentT975(40)).toBeCloseTo(2.021075390306273, 7);
    expect(studentT975(100)).toBeCloseTo(1.9839715185235518, 7);
    expect(studentT975(1000)).toBeCloseTo(1.9623390808264083, 7);
  });

  it("decreases towards the normal quantile", () => {
    let previous = Number.POSITIVE_INFINITY;
    for (let df = 1; df <= 500; df++) {
      const t = studentT975(df);
      expect(t).toBeLessThan(previous);
      expect(t).toBeGreaterThan(1.959963984540054);
      previous = t;
    }
  });

  it("rejects degrees of freedom that are not positive integers", () => {
    expect(() => studentT975(0)).toThrow(RangeError);
    expect(() => studentT975(2.5)).toThrow(RangeError);
  });
});

describe("ci95Mean", () => {
  it("uses the t critical value for n - 1 degrees of freedom", () => {
    // 2 -/+ t(2) * 1 / sqrt(3), t(2) = 4.302653.
    const small = ci95Mean([1, 2, 3])!;
    expect(small.lower).toBeCloseTo(-0.48413771175033, 10);
    expect(small.upper).toBeCloseTo(4.48413771175033, 10);
    // 5 -/+ t(7) * sqrt(32 / 7) / sqrt(8), t(7) = 2.364624.
    const eight = ci95Mean([2, 4, 4, 4, 5, 5, 7, 9])!;
    expect(eight.lower).toBeCloseTo(3.21251208176379, 10);
    expect(eight.upper).toBeCloseTo(6.787487918236209, 10);
  });

  it("is accurate for large samples", () => {
    const values = Array.from({ length: 101 }, (_, i) => i / 10);
    const interval = ci95Mean(values)!;
    expect(interval.lower).toBeCloseTo(4.4215778757373, 7);
    expect(interval.upper).toBeCloseTo(5.5784221242627, 7);
  });

  it("collapses to the mean without spread", () => {
    expect(ci95Mean([3, 3, 3])).toEqual({ lower: 3, upper: 3 });
  });

  it("is null below two values", () => {
    expect(ci95Mean([])).toBeNull();
    expect(ci95Mean([5])).toBeNull();
  });
});

describe("distribution", () => {
  it("counts every point of the scale, unused ones as 0", () => {
    expect(distribution([1, 2, 2, 5, 7, 7, 7], 1, 7)).toEqual({
      "1": 1,
      "2": 2,
      "3": 0,
      "4": 0,
      "5": 1,
      "6": 0,
      "7": 3,
    });
  });

  it("handles scales through zero", () => {
    expect(distribution([-3, -1, 0, 0, 2], -3, 3)).toEqual({
      "-3": 1,
      "-2": 0,
      "-1": 1,
      "0": 2,
      "1": 0,
      "2": 1,
      "3": 0,
    });
  });

  it("leaves out values off the scale or between its points", () => {
    expect(distribution([0, 1, 1.5, 2, 3], 1, 2)).toEqual({ "1": 1, "2": 1 });
    expect(distribution([], 1, 3)).toEqual({ "1": 0, "2": 0, "3": 0 });
  });

  it("rejects bounds that are not an integer range", () => {
    expect(() => distribution([1], 3, 1)).toThrow(RangeError);
    expect(() => distribution([1], 0.5, 2)).toThrow(RangeError);
  });
});

describe("input validation", () => {
  it.each([Number.NaN, Number.POSITIVE_INFINITY])("rejects %s everywhere", (bad) => {
    expect(() => mean([1, bad])).toThrow(RangeError);
    expect(() => sampleStdDev([1, bad])).toThrow(RangeError);
    expect(() => ci95Mean([1, bad])).toThrow(RangeError);
    expect(() => distribution([1, bad], 1, 5)).toThrow(RangeError);
  });
});
