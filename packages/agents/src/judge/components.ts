import type { AxeImpact, PageSignals } from "../types";

/**
 * The measured aspects of a page the heuristic judge scores, each in 0..1 (1: no problem found). A component
 * is null when the page gave nothing to measure (no timings, too little text); it then drops out of the
 * weighted mean instead of counting as good or bad.
 */
export const COMPONENTS = [
  "axe",
  "contrast",
  "textSize",
  "tapTargets",
  "overflow",
  "speed",
  "readability",
  "structure",
  "labels",
  "integrity",
] as const;
export type Component = (typeof COMPONENTS)[number];
export type ComponentScores = Record<Component, number | null>;

/** Points an axe violation costs per impact level. */
export const AXE_IMPACT_POINTS: Record<AxeImpact, number> = {
  critical: 4,
  serious: 3,
  moderate: 1.5,
  minor: 0.5,
};

/** `k / (k + x)`: 1 with no problems, one half at `k` problems, approaching 0 as they pile up. */
const halvingAt = (k: number, x: number) => k / (k + x);
const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** An axe violation's points: its impact's points × (1 + 0.25 per further node), the multiplier capped at 3. */
export function axePoints(v: { impact: AxeImpact; nodes: number }): number {
  return AXE_IMPACT_POINTS[v.impact] * Math.min(3, 1 + 0.25 * (Math.max(1, v.nodes) - 1));
}

/**
 * The time the speed part goes by: the largest contentful paint, else the load; for a page that had not finished
 * loading within the visit's budget, at least that budget (what loaded may have painted early, the page did not
 * finish).
 */
export function paintTime(s: PageSignals): number | null {
  const paint = s.timings.largestContentfulPaint ?? s.timings.load;
  const cut = s.timings.unfinishedAfter;
  return cut === undefined ? paint : Math.max(paint ?? 0, cut);
}

/** LCP (else load) in ms: full marks up to 2.5 s (Web Vitals' "good"), falling linearly to 0 at 6.5 s. */
export function speedScore(ms: number): number {
  return clamp01(1 - (ms - 2500) / 4000);
}

export function componentScores(s: PageSignals): ComponentScores {
  const axeTotal = s.axeViolations.reduce((sum, v) => sum + axePoints(v), 0);
  const paint = paintTime(s);
  const scores: ComponentScores = {
    axe: halvingAt(10, axeTotal),
    contrast: halvingAt(3, s.contrastFailures),
    textSize: clamp01(1 - 2 * s.smallTextRatio),
    tapTargets: halvingAt(4, s.smallTapTargets),
    overflow: s.horizontalOverflow ? 0 : 1,
    speed: paint === null ? null : speedScore(paint),
    readability: s.readingEase === null ? null : clamp01(s.readingEase / 70),
    structure: (s.headings > 0 ? 0.5 : 0) + (s.landmarks > 0 ? 0.5 : 0),
    labels: halvingAt(2, s.imagesWithoutAlt + s.unlabelledFields),
    integrity: halvingAt(2, s.brokenImages + s.consoleErrors),
  };
  for (const c of COMPONENTS) {
    const v = scores[c];
    if (v !== null) scores[c] = round3(v);
  }
  return scores;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function readingLabel(ease: number): string {
  if (ease >= 80) return "easy";
  if (ease >= 60) return "plain";
  if (ease >= 30) return "difficult";
  return "very hard";
}

/** The measured facts behind the scores, worst first, in words a designer can act on. */
export function evidenceFor(s: PageSignals): string[] {
  const facts: string[] = [];
  for (const impact of ["critical", "serious", "moderate", "minor"] as const) {
    const rules = s.axeViolations.filter((v) => v.impact === impact);
    if (rules.length === 0) continue;
    const list = rules.map((v) => `${v.id} (${plural(v.nodes, "node")})`).join(", ");
    facts.push(`${plural(rules.length, `${impact} axe violation`)}: ${list}`);
  }
  if (s.axeChecked === false) facts.push("axe-core checks did not finish, so none are counted");
  else if (s.axeViolations.length === 0) facts.push("no axe-core violations");
  if (s.contrastFailures > 0)
    facts.push(`${plural(s.contrastFailures, "text element")} below WCAG AA contrast`);
  if (s.smallTextRatio > 0)
    facts.push(`${Math.round(s.smallTextRatio * 100)}% of visible text is smaller than 12 px`);
  if (s.smallTapTargets > 0) {
    facts.push(
      `${plural(s.smallTapTargets, "tap target")} smaller than 24×24 px (of ${s.interactiveElements} interactive elements)`,
    );
  }
  if (s.horizontalOverflow) facts.push("the page is wider than the viewport (horizontal scrolling)");
  if (s.imagesWithoutAlt > 0) facts.push(`${plural(s.imagesWithoutAlt, "image")} without a text alternative`);
  if (s.unlabelledFields > 0) facts.push(`${plural(s.unlabelledFields, "form field")} without a label`);
  if (s.brokenImages > 0) facts.push(`${plural(s.brokenImages, "broken image")}`);
  if (s.consoleErrors > 0) facts.push(`${plural(s.consoleErrors, "console error")}`);
  if (s.headings === 0) facts.push("no headings");
  if (s.landmarks === 0) facts.push("no landmarks (main, nav, header, footer)");
  if (s.readingEase !== null) {
    facts.push(
      `Flesch reading ease ${s.readingEase} (${readingLabel(s.readingEase)}), ${plural(s.wordCount, "word")}`,
    );
  } else {
    facts.push(`too little text to rate readability (${plural(s.wordCount, "word")})`);
  }
  const paint = s.timings.largestContentfulPaint ?? s.timings.load;
  if (s.timings.unfinishedAfter !== undefined) {
    facts.push(
      `the page had not finished loading after ${Math.round(s.timings.unfinishedAfter / 100) / 10} s; rated on what had loaded`,
    );
  } else if (paint !== null) {
    facts.push(
      `${s.timings.largestContentfulPaint !== null ? "largest contentful paint" : "load"} at ${paint} ms`,
    );
  }
  return facts;
}
