import {
  paramOf,
  SCALE_POINTS,
  type SCALE_TYPES,
  type SCORING_MODES,
  type TEMPLATE_CONTEXTS,
  type TEMPLATE_TYPES,
  type Template,
  TemplateCreateInput,
  type TemplatePromptDraft,
  TemplateUpdateInput,
  templateScaleIssues,
} from "@rubricon/contracts";
import type { z } from "zod";

export type TemplateType = (typeof TEMPLATE_TYPES)[number];
export type ScaleType = (typeof SCALE_TYPES)[number];
export type TemplateContext = (typeof TEMPLATE_CONTEXTS)[number];
export type ScoringMode = (typeof SCORING_MODES)[number];

export const TEMPLATE_TYPE_LABELS: Record<TemplateType, string> = {
  TEXT_SXS: "Text, side by side",
  TEXT_SSE: "Text, single design",
  MEDIA_SXS: "Media, side by side",
  MEDIA_SSE: "Media, single design",
};

export const SCALE_TYPE_LABELS: Record<ScaleType, string> = {
  THREE_POINT: "three-point",
  FIVE_POINT: "five-point",
  SEVEN_POINT: "seven-point",
};

export const CONTEXT_LABELS: Record<TemplateContext, string> = {
  "ui-ux": "UI / UX",
  "llm-ai": "LLM / AI",
  "design-system": "Design system",
  generic: "Generic",
};

export const SCORING_MODE_LABELS: Record<ScoringMode, string> = {
  holistic: "Holistic — one overall score",
  rubric: "Rubric — score each criterion",
};

/** "1–7, seven-point": the range a rater sees and the size the scale type promises. */
export function formatScale(t: Pick<Template, "scaleMin" | "scaleMax" | "scaleType">): string {
  return `${t.scaleMin}–${t.scaleMax}, ${SCALE_TYPE_LABELS[t.scaleType]}`;
}

/** What the form edits. Numbers stay text so a half-typed "-" or an empty box is representable. */
export interface TemplateFormValues {
  name: string;
  description: string;
  type: TemplateType;
  scaleType: ScaleType;
  scaleMin: string;
  scaleMax: string;
  scaleLabels: Record<string, string>;
  guidelines: string;
  icon: string;
  scaleQuestion: string;
  contexts: TemplateContext[];
  scoringMode: ScoringMode;
  openTextEnabled: boolean;
  isPrimary: boolean;
}

export const EMPTY_TEMPLATE_VALUES: TemplateFormValues = {
  name: "",
  description: "",
  type: "TEXT_SXS",
  scaleType: "SEVEN_POINT",
  scaleMin: "1",
  scaleMax: "7",
  scaleLabels: {},
  guidelines: "",
  icon: "star",
  scaleQuestion: "",
  contexts: [],
  scoringMode: "holistic",
  openTextEnabled: false,
  isPrimary: false,
};

export function valuesFromTemplate(t: Template): TemplateFormValues {
  return {
    name: t.name,
    description: t.description ?? "",
    type: t.type,
    scaleType: t.scaleType,
    scaleMin: String(t.scaleMin),
    scaleMax: String(t.scaleMax),
    scaleLabels: { ...t.scaleLabels },
    guidelines: t.guidelines,
    icon: t.icon,
    scaleQuestion: t.scaleQuestion,
    contexts: [...t.contexts],
    scoringMode: t.scoringMode,
    openTextEnabled: t.openTextEnabled,
    isPrimary: t.isPrimary,
  };
}

/**
 * A drafted create body (from "Draft from a description") as form values. The form has no criteria fields, so the
 * drafted criteria are written into the guidelines, where raters read them.
 */
export function valuesFromDraft(d: TemplatePromptDraft["draft"]): TemplateFormValues {
  const scaleType = d.scaleType ?? EMPTY_TEMPLATE_VALUES.scaleType;
  const criteria = (d.criteria ?? []).map((c) => `- ${c.label}: ${c.description}`).join("\n");
  return {
    ...EMPTY_TEMPLATE_VALUES,
    name: d.name,
    description: d.description ?? "",
    type: d.type ?? EMPTY_TEMPLATE_VALUES.type,
    scaleType,
    scaleMin: "1",
    scaleMax: String(SCALE_POINTS[scaleType]),
    guidelines: [d.guidelines ?? "", criteria && `Criteria:\n${criteria}`].filter(Boolean).join("\n\n"),
    contexts: [...(d.contexts ?? [])],
  };
}

const WHOLE_NUMBER = /^-?\d+$/;

function toNumber(text: string): number | undefined {
  const trimmed = text.trim();
  // Anything but a plain integer goes to the schema as-is, so it reports the type error itself.
  if (trimmed === "") return undefined;
  return WHOLE_NUMBER.test(trimmed) ? Number(trimmed) : Number.NaN;
}

/** The scale's points, low to high, when min and max make a usable range; labels are generated from it. */
export function scalePoints(values: TemplateFormValues): number[] {
  const min = toNumber(values.scaleMin);
  const max = toNumber(values.scaleMax);
  if (min === undefined || max === undefined || Number.isNaN(min) || Number.isNaN(max)) return [];
  if (min >= max || max - min + 1 > SCALE_POINTS.SEVEN_POINT) return [];
  return Array.from({ length: max - min + 1 }, (_, i) => min + i);
}

/** The body fields as the API takes them. Blank labels and labels off the current scale are left out. */
export function bodyFromValues(values: TemplateFormValues) {
  const points = new Set(scalePoints(values).map(String));
  const scaleLabels: Record<string, string> = {};
  for (const [point, label] of Object.entries(values.scaleLabels)) {
    if (points.has(point) && label.trim() !== "") scaleLabels[point] = label;
  }
  return {
    name: values.name,
    description: values.description.trim() === "" ? null : values.description,
    type: values.type,
    scaleType: values.scaleType,
    scaleMin: toNumber(values.scaleMin),
    scaleMax: toNumber(values.scaleMax),
    scaleLabels,
    guidelines: values.guidelines,
    icon: values.icon,
    scaleQuestion: values.scaleQuestion,
    contexts: values.contexts,
    scoringMode: values.scoringMode,
    openTextEnabled: values.openTextEnabled,
    isPrimary: values.isPrimary,
  };
}

type Body = ReturnType<typeof bodyFromValues>;

/** Labels compare by point, not by key order, so re-entering the same labels is not a change. */
function sameValue(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.entries(v).sort(([x], [y]) => Number(x) - Number(y))
      : v;
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}

/**
 * Only the fields that differ from the saved template go into the PATCH: the server names every field it
 * receives with a new value in the version summary, so sending untouched ones would muddy the history.
 */
export function patchFromValues(values: TemplateFormValues, saved: Template): Partial<Body> {
  const body = bodyFromValues(values);
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (!sameValue(value, saved[key as keyof Template])) patch[key] = value;
  }
  return patch as Partial<Body>;
}

export type FieldErrors = Record<string, string>;

/** The field an error belongs under: the top-level name, or `scaleLabels.3` for one point's label. */
export function fieldOf(param: string | undefined): string {
  if (!param) return "form";
  if (/^scaleLabels\.-?\d+/.test(param)) return param.split(".").slice(0, 2).join(".");
  const top = param.split(/[.[]/)[0] ?? "";
  return top in EMPTY_TEMPLATE_VALUES ? top : "form";
}

/** Zod's default messages name types and operators; the form speaks in terms of what to type. */
function friendlyMessage(issue: z.core.$ZodIssue, field: string): string {
  if (field === "scaleMin" || field === "scaleMax") {
    return issue.code === "invalid_type" && issue.input === undefined
      ? "Enter a whole number."
      : "Enter a whole number from -100 to 100.";
  }
  if (issue.code === "too_big" && issue.origin === "string") {
    return `Must be at most ${issue.maximum} characters.`;
  }
  if (issue.code === "too_small" && issue.origin === "string") {
    return issue.minimum === 1 ? "Required." : `Must be at least ${issue.minimum} characters.`;
  }
  return issue.message;
}

/** The contract's cross-field scale rules, keyed by the field each problem belongs under. */
export function scaleErrors(body: Pick<Body, "scaleType" | "scaleMin" | "scaleMax" | "scaleLabels">) {
  const errors: FieldErrors = {};
  const { scaleMin: min, scaleMax: max } = body;
  if (min === undefined || max === undefined || Number.isNaN(min) || Number.isNaN(max)) return errors;
  for (const issue of templateScaleIssues({ ...body, scaleMin: min, scaleMax: max }))
    errors[issue.param] ??= issue.message;
  return errors;
}

/**
 * Validates the form with the same contract schema the API parses, plus the scale rules. Creating parses the
 * whole body with the team; editing parses only the changed fields, as that is what is sent.
 */
export function validateTemplate(
  values: TemplateFormValues,
  mode: { kind: "create"; teamId: string } | { kind: "update"; saved: Template },
): { errors: FieldErrors; payload: Record<string, unknown> | null } {
  const body = bodyFromValues(values);
  const result =
    mode.kind === "create"
      ? TemplateCreateInput.safeParse({ teamId: mode.teamId, ...body })
      : TemplateUpdateInput.safeParse(patchFromValues(values, mode.saved));
  const errors: FieldErrors = {};
  if (!result.success) {
    for (const issue of result.error.issues) {
      const key = fieldOf(paramOf(issue.path));
      errors[key] ??= friendlyMessage(issue, key);
    }
  }
  for (const key of ["scaleMin", "scaleMax"] as const) {
    // Optional for the API (it fills a default), but a box the user emptied is a mistake, not a request for one.
    if (values[key].trim() === "") errors[key] ??= "Enter a whole number.";
  }
  for (const [key, message] of Object.entries(scaleErrors(body))) errors[key] ??= message;
  const valid = result.success && Object.keys(errors).length === 0;
  return { errors, payload: valid ? (result.data as Record<string, unknown>) : null };
}
