import { z } from "zod";
import { DateTime, IdParam } from "./common";
import { listOf, PageQueryShape, withCursorRules } from "./pagination";

/*
 * The persona vocabulary of @rubricon/agents (`Persona` in its types.ts), mirrored here because the contracts
 * package depends on nothing of ours; a core test proves the two lists agree.
 */
export const ACCESSIBILITY_NEED_VALUES = [
  "screen-reader",
  "low-vision",
  "color-blindness",
  "motor",
  "cognitive",
  "keyboard-only",
] as const;
export const DEVICE_KINDS = ["desktop", "mobile"] as const;
export const NETWORK_PROFILES = ["fast", "slow-4g", "slow-3g"] as const;
export const EXPERTISE_LEVELS = ["novice", "intermediate", "expert"] as const;

export const AUTOUSER_STATUSES = ["draft", "published"] as const;
export const AUTOUSER_VISIBILITIES = ["private", "public"] as const;
export const AUTOUSER_SOURCES = ["system", "team"] as const;
export const CALIBRATION_STATUSES = ["uncalibrated", "calibrating", "calibrated", "frozen"] as const;

/** The viewport a device kind gets when none is given. */
export const DEFAULT_VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  mobile: { width: 390, height: 844 },
} as const;

const Viewport = z
  .object({
    width: z.number().int().min(320).max(3840),
    height: z.number().int().min(320).max(2160),
  })
  .strict();

export const PersonaDevice = z
  .object({
    kind: z.enum(DEVICE_KINDS),
    viewport: Viewport,
    network: z.enum(NETWORK_PROFILES),
  })
  .meta({ id: "PersonaDevice", description: "The browser the persona uses: viewport and network speed." });
export type PersonaDevice = z.infer<typeof PersonaDevice>;

/** A device as written: every part optional; the viewport follows the kind and the network defaults to fast. */
export const PersonaDeviceInput = z
  .object({
    kind: z.enum(DEVICE_KINDS).optional(),
    viewport: Viewport.optional(),
    network: z.enum(NETWORK_PROFILES).optional(),
  })
  .strict();
export type PersonaDeviceInput = z.infer<typeof PersonaDeviceInput>;

const uniqueItems = <T extends z.ZodType>(item: T, max: number) =>
  z
    .array(item)
    .max(max)
    .refine((list) => new Set(list).size === list.length, "Each value may appear once.")
    .meta({ uniqueItems: true });

/** The editable fields of an autouser, with their limits. Shared by create, update and duplicate. */
export const AutouserFields = {
  name: z.string().trim().min(1).max(200),
  role: z.string().trim().min(1).max(200).meta({ description: "Who the persona is, in a few words." }),
  description: z.string().max(4000).meta({ description: "Background the judge reads as the persona." }),
  goals: z.array(z.string().trim().min(1).max(500)).max(20),
  traits: z.array(z.string().trim().min(1).max(200)).max(20),
  expertise: z.enum(EXPERTISE_LEVELS),
  accessibilityNeeds: uniqueItems(z.enum(ACCESSIBILITY_NEED_VALUES), ACCESSIBILITY_NEED_VALUES.length),
  systemPrompt: z
    .string()
    .max(8000)
    .nullable()
    .meta({ description: "Extra instructions for a model judge; the heuristic judge ignores them." }),
  status: z.enum(AUTOUSER_STATUSES),
  visibility: z.enum(AUTOUSER_VISIBILITIES).meta({
    description: "`private`: its creator and the team's owners and admins; `public`: the whole team.",
  }),
};

export const AutouserCreateInput = z
  .object({
    teamId: IdParam.meta({ description: "Session callers pick a team; keys act on theirs." }).optional(),
    name: AutouserFields.name,
    role: AutouserFields.role,
    description: AutouserFields.description.default(""),
    goals: AutouserFields.goals.default([]),
    traits: AutouserFields.traits.default([]),
    expertise: AutouserFields.expertise.default("intermediate"),
    accessibilityNeeds: AutouserFields.accessibilityNeeds.default([]),
    device: PersonaDeviceInput.optional(),
    systemPrompt: AutouserFields.systemPrompt.optional(),
    status: AutouserFields.status.default("draft"),
    visibility: AutouserFields.visibility.default("private"),
  })
  .strict();
export type AutouserCreateInput = z.infer<typeof AutouserCreateInput>;

export const AutouserUpdateInput = z
  .object({
    name: AutouserFields.name.optional(),
    role: AutouserFields.role.optional(),
    description: AutouserFields.description.optional(),
    goals: AutouserFields.goals.optional(),
    traits: AutouserFields.traits.optional(),
    expertise: AutouserFields.expertise.optional(),
    accessibilityNeeds: AutouserFields.accessibilityNeeds.optional(),
    device: PersonaDeviceInput.meta({ description: "Parts given replace those parts only." }).optional(),
    systemPrompt: AutouserFields.systemPrompt.optional(),
    status: AutouserFields.status.optional(),
    visibility: AutouserFields.visibility.optional(),
  })
  .strict();
export type AutouserUpdateInput = z.infer<typeof AutouserUpdateInput>;

export const AutouserDuplicateInput = z
  .object({
    teamId: IdParam.meta({ description: "The team that gets the copy; default the caller's." }).optional(),
    name: AutouserFields.name.optional(),
    status: AutouserFields.status.optional(),
    visibility: AutouserFields.visibility.optional(),
  })
  .strict();
export type AutouserDuplicateInput = z.infer<typeof AutouserDuplicateInput>;

export const Autouser = z
  .object({
    id: z.string(),
    object: z.literal("autouser"),
    teamId: z.string().nullable(),
    isSystem: z.boolean().meta({ description: "System personas are shared by every team and read-only." }),
    name: z.string(),
    role: z.string(),
    description: z.string(),
    goals: z.array(z.string()),
    traits: z.array(z.string()),
    expertise: z.enum(EXPERTISE_LEVELS),
    accessibilityNeeds: z.array(z.enum(ACCESSIBILITY_NEED_VALUES)),
    device: PersonaDevice,
    systemPrompt: z.string().nullable(),
    status: z.enum(AUTOUSER_STATUSES),
    visibility: z.enum(AUTOUSER_VISIBILITIES),
    calibrationStatus: z.enum(CALIBRATION_STATUSES),
    activeRubricId: z
      .string()
      .nullable()
      .meta({ description: "The frozen rubric runs use; null until one is." }),
    sourceAutouserId: z
      .string()
      .nullable()
      .meta({ description: "The persona this one was duplicated from." }),
    createdBy: z.string().nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: "Autouser" });
export type Autouser = z.infer<typeof Autouser>;
export const AutouserList = listOf(Autouser, "AutouserList");

export const AutouserListQuery = withCursorRules(
  z.object({
    ...PageQueryShape,
    visibility: z.enum(AUTOUSER_VISIBILITIES).optional(),
    status: z.enum(AUTOUSER_STATUSES).optional(),
    source: z
      .enum(AUTOUSER_SOURCES)
      .meta({ description: "`system`: the shared personas only; `team`: the team's own only; default both." })
      .optional(),
    teamId: IdParam.meta({
      description: "Session callers: this team's autousers (plus system ones).",
    }).optional(),
  }),
);
export type AutouserListQuery = z.infer<typeof AutouserListQuery>;

const RubricWeights = z
  .record(z.string().min(1).max(100), z.number().min(-10).max(10))
  .refine((w) => Object.keys(w).length <= 50, "At most 50 weights.")
  .meta({ description: "Heuristic judge: signal name → weight; empty for the defaults." });

export const AutouserRubricCreateInput = z
  .object({
    dimensionId: IdParam.meta({ description: "The template this rubric rates." }),
    name: z.string().trim().min(1).max(200).optional().meta({ description: "Default: the template's name." }),
    guidance: z.string().max(8000).default("").meta({
      description: "What the judge is told about rating this template as this persona.",
    }),
    weights: RubricWeights.default({}),
  })
  .strict();
export type AutouserRubricCreateInput = z.infer<typeof AutouserRubricCreateInput>;

export const AutouserRubricUpdateInput = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    guidance: z.string().max(8000).optional(),
    weights: RubricWeights.optional(),
  })
  .strict();
export type AutouserRubricUpdateInput = z.infer<typeof AutouserRubricUpdateInput>;

export const AutouserRubric = z
  .object({
    id: z.string(),
    object: z.literal("autouser_rubric"),
    autouserId: z.string(),
    dimensionId: z.string(),
    name: z.string(),
    version: z.number().int(),
    guidance: z.string(),
    weights: z.record(z.string(), z.number()),
    isFrozen: z
      .boolean()
      .meta({ description: "A frozen version never changes; editing it writes the next." }),
    frozenAt: DateTime.nullable(),
    krippendorffAlpha: z
      .number()
      .nullable()
      .meta({ description: "Agreement with humans when it was frozen." }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: "AutouserRubric" });
export type AutouserRubric = z.infer<typeof AutouserRubric>;
export const AutouserRubricList = listOf(AutouserRubric, "AutouserRubricList");

/** A one-paragraph description to draft an autouser or a template from. */
export const DraftFromPromptInput = z
  .object({
    teamId: IdParam.meta({
      description: "Session callers pick the team whose model drafts; keys use theirs.",
    }).optional(),
    description: z.string().trim().min(20).max(2000).meta({
      description:
        "Who the persona is, or what the template should measure, in a paragraph (20 to 2,000 characters).",
    }),
  })
  .strict();
export type DraftFromPromptInput = z.infer<typeof DraftFromPromptInput>;

export const DRAFT_GENERATORS = ["model", "rules"] as const;

/** The drafted persona: exactly the body `POST /autousers` takes (without `teamId`), not saved. */
export const AutouserPromptDraft = z
  .object({
    object: z.literal("autouser_draft"),
    generator: z.enum(DRAFT_GENERATORS),
    model: z.string().nullable(),
    draft: AutouserCreateInput.omit({ teamId: true }),
  })
  .meta({ id: "AutouserPromptDraft" });
export type AutouserPromptDraft = z.infer<typeof AutouserPromptDraft>;
