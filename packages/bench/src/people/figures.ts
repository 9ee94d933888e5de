/**
 * Figures of `pnpm bench people`: how well each persona's scores follow people's mean appeal ratings. Spearman over
 * the pages, and agreement on the pairs people clearly separate (means at least `CLEAR_GAP` apart): the persona is
 * right when it scores the page people preferred higher; a tie counts half.
 */
import { spearman } from "@rubricon/agents";
import { atLeast, type Figure, info } from "../figures";

/** Rating points (of people's 1-9 means) that make a pair clear, as the held-out Reinecke figures count them. */
export const CLEAR_GAP = 1;
/** What a sighted persona should reach with people (the held-out targets). */
export const SPEARMAN_TARGET = 0.6;
export const PAIRS_TARGET = 0.75;

export interface PeopleScore {
  page: string;
  /** People's mean rating. */
  people: number;
  persona: string;
  score: number;
}

export function clearPairs(scores: { people: number; score: number }[]): {
  pairs: number;
  agreement: number;
} {
  let pairs = 0;
  let right = 0;
  for (let i = 0; i < scores.length; i++) {
    for (let j = i + 1; j < scores.length; j++) {
      const a = scores[i]!;
      const b = scores[j]!;
      if (Math.abs(a.people - b.people) < CLEAR_GAP) continue;
      pairs++;
      const people = Math.sign(a.people - b.people);
      const judge = Math.sign(a.score - b.score);
      right += judge === 0 ? 0.5 : judge === people ? 1 : 0;
    }
  }
  return { pairs, agreement: pairs === 0 ? Number.NaN : right / pairs };
}

/** Per persona: Spearman and clear-pair agreement (targets for the personas who see the page), distinct scores. */
export function peopleFigures(scores: PeopleScore[], personas: { id: string; sees: boolean }[]): Figure[] {
  const out: Figure[] = [];
  for (const p of personas) {
    const mine = scores.filter((s) => s.persona === p.id);
    if (mine.length < 3) continue;
    const rho = spearman(
      mine.map((s) => s.score),
      mine.map((s) => s.people),
    );
    const pairs = clearPairs(mine);
    if (p.sees) {
      out.push(atLeast(`people.spearman.${p.id}`, rho, "", SPEARMAN_TARGET));
      out.push(atLeast(`people.clearPairs.${p.id}`, pairs.agreement, "", PAIRS_TARGET));
    } else {
      out.push(info(`people.spearman.${p.id}`, rho, ""));
      out.push(info(`people.clearPairs.${p.id}`, pairs.agreement, ""));
    }
    out.push(info(`people.pages.${p.id}`, mine.length, "pages"));
    out.push(info(`people.pairs.${p.id}`, pairs.pairs, "pairs"));
    out.push(info(`people.distinct.${p.id}`, new Set(mine.map((s) => s.score)).size, "scores"));
  }
  return out;
}
