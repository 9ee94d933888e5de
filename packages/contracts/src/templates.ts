import { z } from "zod";
import { DateTime } from "./common";
import { listOf, PageQueryShape, withCursorRules } from "./pagination";

export const TEMPLATE_TYPES = ["TEXT_SXS", "TEXT_SSE", "MEDIA_SXS", "MEDIA_SSE"] as const;
export const SCALE_TYPES = ["THREE_POINT", "FIVE_POINT", "SEVEN_POINT"] as const;
export const SCALE_POINTS = {
  THREE_POINT: 3,
  FIVE_POINT: 5,
  SEVEN_POINT: 7,
} as const;
export const TEMPLATE_CONTEXTS = ["ui-ux", "llm-ai", "design-system", "generic"] as const;
export const SCORING_MODES = ["holistic", "rubric"] as const;
export const TEMPLATE_CHANGE_TYPES = ["created", "updated", "duplicated"] as const;

const Criterion = z
  .object({
    id: z.string().min(1).max(100),
    label: z.string().max(500),
    description: z.string().max(2000),
  })
  .strict();
const Anchor = z
  .object({
    id: z.string().min(1).max(100),
    label: z.string().max(500),
    description: z.string().max(2000),
    weight: z.number(),
  })
  .strict();
const CustomQuestion = z
  .object({
    id: z.string().min(1).max(100),
    text: z.string().max(2000),
    category: z.string().max(200),
  })
  .strict();
const Labels500 = z.array(z.string().max(500)).max(50);
const Descriptions2000 = z.array(z.string().max(2000)).max(50);

/** The spec's Template body: every field with its type, limit and default. Shared by create and PATCH. */
export const TemplateBodyShape = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullable(),
  type: z.enum(TEMPLATE_TYPES),
  scaleType: z.enum(SCALE_TYPES),
  scaleMin: z.number().int().min(-100).max(100),
  scaleMax: z.number().int().min(-100).max(100),
  scaleLabels: z.record(z.string().regex(/^-?\d+$/, "keys are scale points"), z.string().max(500)),
  guidelines: z.string().max(50000),
  criteria: z.array(Criterion).max(100),
  factors: z.array(Criterion).max(100),
  sseCriteria: z.array(Criterion).max(100),
  icon: z.string().min(1).max(100),
  scaleQuestion: z.string().max(500),
  sseQuestion: z.string().max(500),
  sseScaleLabels: Labels500.nullable(),
  sxsScaleLabels: Labels500.nullable(),
  sseScaleDescriptions: Descriptions2000.nullable(),
  sxsScaleDescriptions: Descriptions2000.nullable(),
  contexts: z.array(z.enum(TEMPLATE_CONTEXTS)).max(4),
  scoringMode: z.enum(SCORING_MODES),
  sxsScoringMode: z.enum(SCORING_MODES),
  sseAnchors: z.array(Anchor).max(50),
  sxsAnchors: z.array(Anchor).max(50),
  sseAnchorLabels: Labels500,
  sxsAnchorLabels: Labels500,
  sseAnchorDescriptions: Descriptions2000,
  sxsAnchorDescriptions: Descriptions2000,
  isPrimary: z.boolean(),
  sourceBuiltInId: z.string().max(200),
  openTextEnabled: z.boolean(),
  customQuestions: z.array(CustomQuestion).max(50),
};

export const TEMPLATE_DEFAULTS = {
  description: null,
  type: "TEXT_SXS",
  scaleType: "SEVEN_POINT",
  scaleLabels: {},
  guidelines: "",
  criteria: [],
  factors: [],
  sseCriteria: [],
  icon: "star",
  scaleQuestion: "",
  sseQuestion: "",
  sseScaleLabels: null,
  sxsScaleLabels: null,
  sseScaleDescriptions: null,
  sxsScaleDescriptions: null,
  contexts: [],
  scoringMode: "holistic",
  sxsScoringMode: "holistic",
  sseAnchors: [],
  sxsAnchors: [],
  sseAnchorLabels: [],
  sxsAnchorLabels: [],
  sseAnchorDescriptions: [],
  sxsAnchorDescriptions: [],
  isPrimary: false,
  sourceBuiltInId: "",
  openTextEnabled: false,
  customQuestions: [],
} as const;

type Shape = typeof TemplateBodyShape;
export type TemplateBody = { [K in keyof Shape]: z.infer<Shape[K]> };

export const TemplateCreateInput = z
  .object({
    teamId: z.string().min(1).max(100).meta({ description: "Team that owns the template." }),
    name: TemplateBodyShape.name,
    ...Object.fromEntries(
      Object.entries(TemplateBodyShape)
        .filter(([k]) => k !== "name")
        .map(([k, v]) => [k, (v as z.ZodType).optional()]),
    ),
  } as { teamId: z.ZodString; name: Shape["name"] } & {
    [K in Exclude<keyof Shape, "name">]: z.ZodOptional<Shape[K]>;
  })
  .strict();
export type TemplateCreateInput = z.infer<typeof TemplateCreateInput>;

export const TemplateUpdateInput = z
  .object(
    Object.fromEntries(
      Object.entries(TemplateBodyShape).map(([k, v]) => [k, (v as z.ZodType).optional()]),
    ) as {
      [K in keyof Shape]: z.ZodOptional<Shape[K]>;
    },
  )
  .strict();
export type TemplateUpdateInput = z.infer<typeof TemplateUpdateInput>;

export const Template = z
  .object({
    id: z.string(),
    object: z.literal("template"),
    teamId: z.string().nullable(),
    isSystem: z.boolean(),
    version: z.number().int(),
    createdAt: DateTime,
    updatedAt: DateTime,
    ...TemplateBodyShape,
    name: z.string(),
  })
  .meta({ id: "Template" });
export type Template = z.infer<typeof Template>;
export const TemplateList = listOf(Template, "TemplateList");

export const TemplateVersion = z
  .object({
    id: z.string(),
    object: z.literal("template_version"),
    dimensionId: z.string(),
    version: z.number().int(),
    changeType: z.enum(TEMPLATE_CHANGE_TYPES),
    changeSummary: z.string().nullable(),
    createdAt: DateTime,
  })
  .meta({ id: "TemplateVersion" });
export type TemplateVersion = z.infer<typeof TemplateVersion>;
export const TemplateVersionList = listOf(TemplateVersion, "TemplateVersionList");

export const TemplateListQuery = withCursorRules(
  z.object({
    ...PageQueryShape,
    teamId: z
      .string()
      .min(1)
      .max(100)
      .meta({
        description: "Session callers: this team's templates (plus system ones).",
      })
      .optional(),
  }),
);

const SCALE_TYPE_NAMES = {
  THREE_POINT: "three-point",
  FIVE_POINT: "five-point",
  SEVEN_POINT: "seven-point",
} as const;

export interface TemplateScaleIssue {
  param: string;
  message: string;
}

/**
 * The checks no single field's schema can make: the scale is ordered, has as many points as its type says, and
 * its labels fit it. Shared by the server (which enforces them) and the dashboard (which shows them as you type).
 */
export function templateScaleIssues(
  body: Pick<TemplateBody, "scaleType" | "scaleMin" | "scaleMax" | "scaleLabels"> &
    Partial<
      Pick<
        TemplateBody,
        "sseScaleLabels" | "sseScaleDescriptions" | "sxsScaleLabels" | "sxsScaleDescriptions"
      >
    >,
): TemplateScaleIssue[] {
  const issues: TemplateScaleIssue[] = [];
  const { scaleMin: min, scaleMax: max, scaleType } = body;
  const points = SCALE_POINTS[scaleType];
  if (min >= max) {
    issues.push({
      param: "scaleMax",
      message: `\`scaleMax\` (${max}) must be greater than \`scaleMin\` (${min}).`,
    });
  } else if (max - min + 1 !== points) {
    issues.push({
      param: "scaleMax",
      message: `A ${SCALE_TYPE_NAMES[scaleType]} scale has ${points} points, so \`scaleMax\` must be ${min + points - 1} (\`scaleMin\` + ${points - 1}).`,
    });
  }
  for (const key of Object.keys(body.scaleLabels)) {
    const point = Number(key);
    if (point < min || point > max) {
      issues.push({
        param: `scaleLabels.${key}`,
        message: `Scale label ${key} is outside the scale ${min}..${max}.`,
      });
    }
  }
  for (const field of ["sseScaleLabels", "sseScaleDescriptions"] as const) {
    const list = body[field];
    if (list && list.length > points) {
      issues.push({
        param: field,
        message: `\`${field}\` has ${list.length} entries but the scale has ${points} points.`,
      });
    }
  }
  for (const field of ["sxsScaleLabels", "sxsScaleDescriptions"] as const) {
    const list = body[field];
    if (list && list.length > 7) {
      issues.push({
        param: field,
        message: `\`${field}\` has ${list.length} entries but the side-by-side scale (-3..+3) has 7.`,
      });
    }
  }
  return issues;
}

/** The drafted template: exactly the body `POST /templates` takes (without `teamId`), not saved. */
export const TemplatePromptDraft = z
  .object({
    object: z.literal("template_draft"),
    generator: z.enum(["model", "rules"]),
    model: z.string().nullable(),
    draft: TemplateCreateInput.omit({ teamId: true }),
  })
  .meta({ id: "TemplatePromptDraft" });
export type TemplatePromptDraft = z.infer<typeof TemplatePromptDraft>;
