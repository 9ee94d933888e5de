import type { Persona } from "../types";
import type { Component } from "./components";

type Weights = Partial<Record<Component, number>>;

/** The overall formula: every component, axe twice. Also used for templates the page signals cannot speak to. */
const OVERALL: Weights = {
  axe: 2,
  contrast: 1,
  textSize: 1,
  tapTargets: 1,
  overflow: 1,
  speed: 1,
  readability: 1,
  structure: 1,
  labels: 1,
  integrity: 1,
};

/** Component weights per system template (`sourceBuiltInId`). */
export const TEMPLATE_WEIGHTS: Record<string, Weights> = {
  overall: OVERALL,
  accessibility: { axe: 3, contrast: 2, labels: 2, textSize: 1, tapTargets: 1, structure: 1 },
  usability: {
    tapTargets: 2,
    overflow: 2,
    integrity: 2,
    speed: 1.5,
    labels: 1,
    structure: 1,
    readability: 1,
  },
  "visual-design": { contrast: 2, textSize: 2, overflow: 2, integrity: 1, tapTargets: 1, structure: 0.5 },
  "design-system": { contrast: 2, textSize: 2, overflow: 2, integrity: 1, tapTargets: 1, structure: 0.5 },
  content: { readability: 3, structure: 1, textSize: 1, contrast: 1 },
};

/** The formula a template is rated with, and whether the page signals measure what it asks. */
export function templateWeights(sourceBuiltInId: string | null): {
  weights: Weights;
  formula: string;
  direct: boolean;
} {
  const known = sourceBuiltInId ? TEMPLATE_WEIGHTS[sourceBuiltInId] : undefined;
  if (known && sourceBuiltInId) return { weights: known, formula: sourceBuiltInId, direct: true };
  return { weights: OVERALL, formula: "overall", direct: false };
}

/** Multipliers on component weights for what a persona depends on most. They compound. */
export const PERSONA_MULTIPLIERS: { when: (p: Persona) => boolean; label: string; multipliers: Weights }[] = [
  {
    when: (p) => p.accessibilityNeeds.includes("screen-reader"),
    label: "screen-reader user",
    multipliers: { axe: 3, labels: 3, structure: 3, contrast: 0.5, textSize: 0.5 },
  },
  {
    when: (p) => p.accessibilityNeeds.includes("low-vision"),
    label: "low vision",
    multipliers: { contrast: 3, textSize: 3, overflow: 1.5 },
  },
  {
    when: (p) => p.accessibilityNeeds.includes("color-blindness"),
    label: "colour blindness",
    multipliers: { contrast: 2 },
  },
  {
    when: (p) => p.accessibilityNeeds.includes("motor"),
    label: "motor impairment",
    multipliers: { tapTargets: 3 },
  },
  {
    when: (p) => p.accessibilityNeeds.includes("keyboard-only"),
    label: "keyboard only",
    multipliers: { axe: 2, labels: 1.5, structure: 2 },
  },
  {
    when: (p) => p.accessibilityNeeds.includes("cognitive"),
    label: "cognitive needs",
    multipliers: { readability: 3, structure: 1.5 },
  },
  {
    when: (p) => p.device.kind === "mobile",
    label: "mobile device",
    multipliers: { tapTargets: 2, overflow: 2, speed: 1.5 },
  },
  { when: (p) => p.device.network === "slow-4g", label: "slow 4G", multipliers: { speed: 2 } },
  { when: (p) => p.device.network === "slow-3g", label: "slow 3G", multipliers: { speed: 3 } },
  { when: (p) => p.expertise === "novice", label: "novice", multipliers: { readability: 2, labels: 1.5 } },
  { when: (p) => p.expertise === "expert", label: "expert", multipliers: { readability: 0.5 } },
];

export function personaWeights(base: Weights, persona: Persona): { weights: Weights; applied: string[] } {
  const weights: Weights = { ...base };
  const applied: string[] = [];
  for (const rule of PERSONA_MULTIPLIERS) {
    if (!rule.when(persona)) continue;
    applied.push(rule.label);
    for (const [c, m] of Object.entries(rule.multipliers) as [Component, number][]) {
      if (weights[c] !== undefined) weights[c] = weights[c]! * m;
    }
  }
  return { weights, applied };
}
