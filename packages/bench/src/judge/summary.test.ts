import { describe, expect, it } from "vitest";
import { figuresOf, median, type PairResult, tally } from "./summary";

const pair = (
  persona: string,
  intact: number,
  degraded: number,
  over: Partial<PairResult> = {},
): PairResult => ({
  corpus: "heldout",
  page: "p",
  persona,
  degradation: "tiny-text",
  intact,
  degraded,
  ...over,
});

describe("pairwise figures", () => {
  it("count a tie as half and report the share of ties and the medians", () => {
    const t = tally([pair("a", 6, 2), pair("a", 4, 4), pair("a", 3, 5), pair("a", 5, 1)]);
    expect(t).toEqual({ pairs: 4, accuracy: 2.5 / 4, ties: 0.25, intactMedian: 4.5, degradedMedian: 3 });
    expect(median([])).toBeNaN();
  });

  it("pass a persona and degradation only at 0.95 and ties only at 0.05, per corpus", () => {
    const pairs = [
      ...Array.from({ length: 19 }, () => pair("a", 6, 2)),
      pair("a", 3, 3),
      ...Array.from({ length: 10 }, () => pair("b", 6, 2)),
      pair("b", 2, 6, { degradation: "overlap" }),
      pair("a", 6, 1, { corpus: "tuning" }),
    ];
    const figures = figuresOf(pairs, ["a", "b"], ["tiny-text", "overlap"]);
    const byName = new Map(figures.map((f) => [f.name, f]));
    expect(byName.get("judge.heldout.accuracy.tiny-text.a")).toMatchObject({ value: 0.975, pass: true });
    expect(byName.get("judge.heldout.accuracy.overlap.b")).toMatchObject({ value: 0, pass: false });
    expect(byName.get("judge.heldout.ties.a")).toMatchObject({ value: 0.05, pass: true, target: "<= 0.05" });
    expect(byName.get("judge.heldout.ties")).toMatchObject({ value: 0.032, pass: true });
    expect(byName.get("judge.tuning.accuracy")).toMatchObject({ value: 1, pass: true, target: ">= 0.95" });
    // No pairs, no figure: a persona never rated on a degradation is not reported as passing.
    expect(byName.has("judge.heldout.accuracy.overlap.a")).toBe(false);
    expect(byName.has("judge.tuning.accuracy.overlap")).toBe(false);
  });
});
