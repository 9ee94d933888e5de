/**
 * Pairwise figures of `pnpm bench judge`: for every page, persona and degradation one pair (the intact page and
 * its twin). The judge is right when it scores the intact page higher; a tie counts half.
 */
import type { Figure } from "../figures";
import type { CorpusName } from "./corpus";
import type { Degradation } from "./degrade";

export interface PairResult {
  corpus: CorpusName;
  page: string;
  persona: string;
  degradation: Degradation;
  intact: number;
  degraded: number;
}

export type { Figure };

export const ACCURACY_TARGET = 0.95;
export const TIES_TARGET = 0.05;

export interface Tally {
  pairs: number;
  accuracy: number;
  ties: number;
  intactMedian: number;
  degradedMedian: number;
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function tally(pairs: PairResult[]): Tally {
  let right = 0;
  let ties = 0;
  for (const p of pairs) {
    if (p.intact > p.degraded) right += 1;
    else if (p.intact === p.degraded) {
      right += 0.5;
      ties += 1;
    }
  }
  const n = pairs.length;
  return {
    pairs: n,
    accuracy: n === 0 ? Number.NaN : right / n,
    ties: n === 0 ? Number.NaN : ties / n,
    intactMedian: median(pairs.map((p) => p.intact)),
    degradedMedian: median(pairs.map((p) => p.degraded)),
  };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** Figures for results.json: accuracy per degradation × persona and their margins, ties, medians; per corpus. */
export function figuresOf(
  pairs: PairResult[],
  personas: string[],
  degradations: readonly Degradation[],
): Figure[] {
  const out: Figure[] = [];
  const accuracy = (name: string, t: Tally) => {
    if (t.pairs === 0) return;
    out.push({
      name,
      value: round(t.accuracy),
      unit: "share",
      target: `>= ${ACCURACY_TARGET}`,
      pass: t.accuracy >= ACCURACY_TARGET,
    });
  };
  for (const corpus of ["tuning", "heldout"] as const) {
    const inCorpus = pairs.filter((p) => p.corpus === corpus);
    if (inCorpus.length === 0) continue;
    const all = tally(inCorpus);
    accuracy(`judge.${corpus}.accuracy`, all);
    out.push({
      name: `judge.${corpus}.ties`,
      value: round(all.ties),
      unit: "share",
      target: `<= ${TIES_TARGET}`,
      pass: all.ties <= TIES_TARGET,
    });
    for (const d of degradations) {
      const ofD = inCorpus.filter((p) => p.degradation === d);
      const t = tally(ofD);
      accuracy(`judge.${corpus}.accuracy.${d}`, t);
      for (const persona of personas)
        accuracy(`judge.${corpus}.accuracy.${d}.${persona}`, tally(ofD.filter((p) => p.persona === persona)));
      if (t.pairs > 0)
        out.push({
          name: `judge.${corpus}.median.${d}`,
          value: t.degradedMedian,
          unit: "points",
          target: null,
          pass: null,
        });
    }
    for (const persona of personas) {
      const t = tally(inCorpus.filter((p) => p.persona === persona));
      accuracy(`judge.${corpus}.accuracy.all.${persona}`, t);
      if (t.pairs > 0)
        out.push({
          name: `judge.${corpus}.ties.${persona}`,
          value: round(t.ties),
          unit: "share",
          target: `<= ${TIES_TARGET}`,
          pass: t.ties <= TIES_TARGET,
        });
    }
    out.push({
      name: `judge.${corpus}.median.intact`,
      value: all.intactMedian,
      unit: "points",
      target: null,
      pass: null,
    });
  }
  return out;
}
