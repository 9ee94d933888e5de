import type { Judge, JudgeInput, JudgeResult, JudgeTemplate, PageSignals, Persona } from "../types";
import { COMPONENTS, type Component, componentScores, evidenceFor } from "./components";
import { personaWeights, templateWeights } from "./weights";

export const HEURISTIC_MODEL = "heuristic-v1";

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

/** SxS: side B's quality less side A's, to -3 (A much better) .. +3 (B much better). */
export function sxsScore(qA: number, qB: number): number {
  const d = qB - qA;
  const size = Math.abs(d);
  if (size < SXS_DEAD_ZONE) return 0;
  const step = size < SXS_STEPS[0] ? 1 : size < SXS_STEPS[1] ? 2 : 3;
  return Math.sign(d) * step;
}

const NOTE = `Heuristic measurement, not a model: fixed formulas (${HEURISTIC_MODEL}) over what the browser measured.`;

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
    model: HEURISTIC_MODEL,
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    evidence,
  };
}

function rateSxs(input: JudgeInput, a: PageSignals, b: PageSignals): JudgeResult {
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
    model: HEURISTIC_MODEL,
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    evidence,
  };
}

/**
 * The offline judge: deterministic scores from page signals, for teams without a model and as a baseline
 * beside one. The same signals, persona and templates always give the same ratings.
 */
export function createHeuristicJudge(): Judge {
  return {
    kind: "heuristic",
    async rate(input: JudgeInput): Promise<JudgeResult> {
      return input.task.type === "SSE"
        ? rateSse(input, input.task.capture.signals)
        : rateSxs(input, input.task.sideA.signals, input.task.sideB.signals);
    },
  };
}
