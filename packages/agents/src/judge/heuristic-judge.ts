import type { Judge, JudgeInput, JudgeResult, JudgeTemplate, PageSignals, Persona } from "../types";
import type { AppealFit } from "./appeal/model";
import { COMPONENTS, type Component, componentScores, evidenceFor } from "./components";
import { pictureSource } from "./picture";
import { APPEAL_FIT, appealSentence, isPicture, QUALITY_FLOOR, qualityV2, renderingEvidence } from "./v2";
import { personaWeights, templateWeights } from "./weights";

/** The heuristic judge's current formulas; ratings keep the name of the formulas that made them. */
export const HEURISTIC_MODEL = "heuristic-v15";
/** The defect-only formulas ratings made before the gates carry; kept so they can be reproduced. */
export const HEURISTIC_MODEL_V1 = "heuristic-v1";
export type HeuristicModel = typeof HEURISTIC_MODEL | typeof HEURISTIC_MODEL_V1;

/** SxS: quality differences below this read as "about the same". */
export const SXS_DEAD_ZONE = 0.05;
/** SxS: |difference| from the dead zone up to 0.15 → 1, up to 0.30 → 2, beyond → 3. */
export const SXS_STEPS = [0.15, 0.3] as const;

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Weighted mean of the component scores the formula uses, skipping components with nothing measured. */
export function quality(
  signals: PageSignals,
  template: Pick<JudgeTemplate, "sourceBuiltInId">,
  persona: Persona,
): { quality: number; formula: string; direct: boolean; personaFactors: string[]; used: Component[] } {
  const scores = componentScores(signals);
  const base = templateWeights(template.sourceBuiltInId);
  const { weights, applied } = personaWeights(base.weights, persona);
  let sum = 0;
  let total = 0;
  const used: Component[] = [];
  for (const c of COMPONENTS) {
    const w = weights[c];
    const s = scores[c];
    if (w === undefined || s === null) continue;
    sum += w * s;
    total += w;
    used.push(c);
  }
  return {
    quality: total === 0 ? 0.5 : round3(sum / total),
    formula: base.formula,
    direct: base.direct,
    personaFactors: applied,
    used,
  };
}

/** SSE: quality 0..1 spread evenly over the template's scale, rounded to the nearest point. */
export function sseScore(q: number, template: Pick<JudgeTemplate, "scaleMin" | "scaleMax">): number {
  return template.scaleMin + Math.round(q * (template.scaleMax - template.scaleMin));
}

/**
 * The current SSE mapping: quality on a log scale, from the top point at quality 1 down to the bottom one at
 * `QUALITY_FLOOR` and below. v2's gates multiply quality, so on a log scale a gate takes the same number of
 * points off a page whatever else is wrong with it: a severe problem still costs a point on a page that is
 * already poor, where a linear scale would squeeze it into a rounding step.
 */
export { QUALITY_FLOOR };
export function sseScoreV2(q: number, template: Pick<JudgeTemplate, "scaleMin" | "scaleMax">): number {
  const position = q <= QUALITY_FLOOR ? 0 : 1 + Math.log(Math.min(1, q)) / Math.log(1 / QUALITY_FLOOR);
  return template.scaleMin + Math.round(position * (template.scaleMax - template.scaleMin));
}

/** SxS: side B's quality less side A's, to -3 (A much better) .. +3 (B much better). */
export function sxsScore(qA: number, qB: number): number {
  const d = qB - qA;
  const size = Math.abs(d);
  if (size < SXS_DEAD_ZONE) return 0;
  const step = size < SXS_STEPS[0] ? 1 : size < SXS_STEPS[1] ? 2 : 3;
  return Math.sign(d) * step;
}

const noteFor = (model: HeuristicModel) =>
  `Heuristic measurement, not a model: fixed formulas (${model}) over what the browser measured.`;

function personaNote(factors: string[]): string {
  return factors.length > 0 ? ` Weighted for: ${factors.join(", ")}.` : "";
}

function formulaNote(t: JudgeTemplate, formula: string, direct: boolean): string {
  return direct ? "" : ` (no page measure for "${t.name}"; rated with the ${formula} formula)`;
}

function sxsWords(score: number): string {
  if (score === 0) return "about the same";
  const side = score < 0 ? "A" : "B";
  const size = ["", "slightly better", "better", "much better"][Math.abs(score)];
  return `${side} ${size}`;
}

function rateSse(input: JudgeInput, signals: PageSignals): JudgeResult {
  const NOTE = noteFor(HEURISTIC_MODEL_V1);
  const ratings: Record<string, number> = {};
  const lines: string[] = [];
  let factors: string[] = [];
  for (const t of input.templates) {
    const q = quality(signals, t, input.persona);
    factors = q.personaFactors;
    ratings[t.id] = sseScore(q.quality, t);
    lines.push(
      `${t.name}: ${ratings[t.id]} of ${t.scaleMax} (quality ${q.quality})${formulaNote(t, q.formula, q.direct)}.`,
    );
  }
  const evidence = evidenceFor(signals);
  return {
    ratings,
    justification: `${NOTE}${personaNote(factors)} ${lines.join(" ")} Evidence: ${evidence.join("; ")}.`,
    judge: "heuristic",
    model: HEURISTIC_MODEL_V1,
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    evidence,
  };
}

function rateSxs(input: JudgeInput, a: PageSignals, b: PageSignals): JudgeResult {
  const NOTE = noteFor(HEURISTIC_MODEL_V1);
  const ratings: Record<string, number> = {};
  const lines: string[] = [];
  let factors: string[] = [];
  for (const t of input.templates) {
    const qa = quality(a, t, input.persona);
    const qb = quality(b, t, input.persona);
    factors = qa.personaFactors;
    ratings[t.id] = sxsScore(qa.quality, qb.quality);
    lines.push(
      `${t.name}: ${ratings[t.id]} (${sxsWords(ratings[t.id]!)}; quality A ${qa.quality}, B ${qb.quality})` +
        `${formulaNote(t, qa.formula, qa.direct)}.`,
    );
  }
  const evidence = [...evidenceFor(a).map((e) => `A: ${e}`), ...evidenceFor(b).map((e) => `B: ${e}`)];
  return {
    ratings,
    justification: `${NOTE}${personaNote(factors)} ${lines.join(" ")} Evidence: ${evidence.join("; ")}.`,
    judge: "heuristic",
    model: HEURISTIC_MODEL_V1,
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    evidence,
  };
}

/** What drove a page's ratings: the gates that bit across the templates, strongest first, without repeats. */
function drivers(input: JudgeInput, signals: PageSignals, fit: AppealFit): string[] {
  const seen = new Map<string, number>();
  for (const t of input.templates) {
    for (const g of qualityV2(signals, t, input.persona, fit).gates) {
      if (g.factor >= 0.95 || g.name === "appeal" || g.name === "picture") continue;
      seen.set(g.reason, Math.min(seen.get(g.reason) ?? 1, g.factor));
    }
  }
  return [...seen.entries()].sort((a, b) => a[1] - b[1]).map(([reason]) => reason);
}

/** Whether the persona sees the page, so its design counts for them. */
const sees = (input: JudgeInput) => {
  const needs = input.persona.accessibilityNeeds;
  return !needs.includes("screen-reader") || needs.includes("low-vision");
};

/** One to three plain sentences on what drove a page's score for this persona. */
function summary(input: JudgeInput, signals: PageSignals, fit: AppealFit, side = ""): string[] {
  const out: string[] = [];
  const bits = drivers(input, signals, fit);
  const of = side ? ` ${side}` : "";
  if (bits.length > 0) {
    const more =
      bits.length > 2 ? ` and ${bits.length - 2} smaller ${bits.length === 3 ? "problem" : "problems"}` : "";
    out.push(`What held${of || " it"} down most: ${bits.slice(0, 2).join("; ")}${more}.`);
  } else {
    out.push(`Nothing${of ? ` on${of}` : ""} stood in this persona's way.`);
  }
  if (signals.visual && sees(input)) {
    const sentence = appealSentence(signals.visual, fit);
    const lead = isPicture(signals)
      ? `${side ? `${side} is` : "The page is"} one picture, so its design is judged from ${pictureSource(signals.visual)}: p`
      : side
        ? `On${of}, p`
        : "P";
    out.push(`${lead}${sentence.slice(1)}.`);
  }
  return out;
}

/** For a picture a persona sees, what its design was judged by, first. */
function pictureReason(input: JudgeInput, signals: PageSignals, fit: AppealFit): string[] {
  const t = input.templates[0];
  if (!t) return [];
  const gate = qualityV2(signals, t, input.persona, fit).gates.find((g) => g.name === "picture");
  return gate ? [gate.reason] : [];
}

/** The measurements behind a rating, each once. */
function measurements(signals: PageSignals): string[] {
  // The rendered image count says what the defect count's "broken image" says, with the share left empty.
  const defects = evidenceFor(signals).filter((e) => !(signals.rendering && /broken images?$/.test(e)));
  return [...new Set([...renderingEvidence(signals), ...defects])];
}

const closing = (factors: string[]) => `${noteFor(HEURISTIC_MODEL)}${personaNote(factors)}`;

function rateSseV2(input: JudgeInput, signals: PageSignals, fit: AppealFit): JudgeResult {
  const ratings: Record<string, number> = {};
  const scores: string[] = [];
  let factors: string[] = [];
  for (const t of input.templates) {
    const q = qualityV2(signals, t, input.persona, fit);
    factors = q.personaFactors;
    ratings[t.id] = sseScoreV2(q.quality, t);
    scores.push(`${t.name} ${ratings[t.id]} of ${t.scaleMax}${formulaNote(t, q.formula, q.direct)}`);
  }
  const facts = measurements(signals);
  const lead = [`Rated ${scores.join(", ")}.`, ...summary(input, signals, fit)];
  return {
    ratings,
    justification: `${lead.join(" ")} Measurements: ${facts.join("; ")}. ${closing(factors)}`,
    judge: "heuristic",
    model: HEURISTIC_MODEL,
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    evidence: [...pictureReason(input, signals, fit), ...drivers(input, signals, fit), ...facts],
  };
}

function rateSxsV2(input: JudgeInput, a: PageSignals, b: PageSignals, fit: AppealFit): JudgeResult {
  const ratings: Record<string, number> = {};
  const scores: string[] = [];
  let factors: string[] = [];
  for (const t of input.templates) {
    const qa = qualityV2(a, t, input.persona, fit);
    const qb = qualityV2(b, t, input.persona, fit);
    factors = qa.personaFactors;
    ratings[t.id] = sxsScore(qa.quality, qb.quality);
    scores.push(`${t.name} ${sxsWords(ratings[t.id]!)}${formulaNote(t, qa.formula, qa.direct)}`);
  }
  const lead = [
    `Rated ${scores.join(", ")}.`,
    ...summary(input, a, fit, "A"),
    ...summary(input, b, fit, "B"),
  ];
  const facts = [...measurements(a).map((e) => `A: ${e}`), ...measurements(b).map((e) => `B: ${e}`)];
  return {
    ratings,
    justification: `${lead.join(" ")} Measurements: ${facts.join("; ")}. ${closing(factors)}`,
    judge: "heuristic",
    model: HEURISTIC_MODEL,
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    evidence: [
      ...[...pictureReason(input, a, fit), ...drivers(input, a, fit)].map((e) => `A: ${e}`),
      ...[...pictureReason(input, b, fit), ...drivers(input, b, fit)].map((e) => `B: ${e}`),
      ...facts,
    ],
  };
}

/**
 * The offline judge: deterministic scores from page signals, for teams without a model and as a baseline
 * beside one. The same signals, persona and templates always give the same ratings. `heuristic-v15` (the
 * default) adds gates for empty, broken, unstyled and unreadable pages and the screenshot's visual appeal;
 * `heuristic-v1` reproduces ratings stored before it. `appealFit` swaps the fitted sense of design (a bench scores
 * each page with a model that never saw it).
 */
export function createHeuristicJudge(options: { model?: HeuristicModel; appealFit?: AppealFit } = {}): Judge {
  const v1 = options.model === HEURISTIC_MODEL_V1;
  const fit = options.appealFit ?? APPEAL_FIT;
  return {
    kind: "heuristic",
    async rate(input: JudgeInput): Promise<JudgeResult> {
      if (input.task.type === "SSE")
        return v1
          ? rateSse(input, input.task.capture.signals)
          : rateSseV2(input, input.task.capture.signals, fit);
      const { sideA, sideB } = input.task;
      return v1
        ? rateSxs(input, sideA.signals, sideB.signals)
        : rateSxsV2(input, sideA.signals, sideB.signals, fit);
    },
  };
}
