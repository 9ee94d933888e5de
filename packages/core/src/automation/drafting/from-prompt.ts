import { generateStructured, type ModelConfig } from "@rubricon/agents";
import {
  ACCESSIBILITY_NEED_VALUES,
  AutouserPromptDraft,
  type DraftFromPromptInput,
  EXPERTISE_LEVELS,
  NETWORK_PROFILES,
  SCALE_TYPES,
  TEMPLATE_CONTEXTS,
  TEMPLATE_TYPES,
  TemplatePromptDraft,
} from "@rubricon/contracts";
import { z } from "zod";
import { resolveTargetTeam } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";

export type DraftKind = "autouser" | "template";

/** Writes a draft from a description: the team's model, or the rule-based drafter. Answers the raw draft. */
export interface PromptDrafter {
  generator: "model" | "rules";
  model: string | null;
  draft(kind: DraftKind, description: string, signal: AbortSignal): Promise<unknown>;
}

export type PromptDraftEvent =
  | { event: "start"; data: { kind: DraftKind; generator: "model" | "rules"; model: string | null } }
  | { event: "text_delta"; data: { delta: string } }
  | { event: "draft"; data: AutouserPromptDraft | TemplatePromptDraft }
  | { event: "failed"; data: { message: string; reason: string } };

const words = (text: string) => text.toLowerCase();
const has = (text: string, ...needles: (string | RegExp)[]) =>
  needles.some((n) => (typeof n === "string" ? text.includes(n) : n.test(text)));

function firstSentence(text: string, max: number): string {
  const sentence = text.trim().split(/(?<=[.!?])\s+/)[0] ?? text;
  const clean = sentence.replace(/[.!?]+$/, "").trim();
  return clean.length <= max ? clean : `${clean.slice(0, max - 1).trimEnd()}…`;
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const NEEDS: [(typeof ACCESSIBILITY_NEED_VALUES)[number], RegExp][] = [
  ["screen-reader", /screen ?reader|\bblind\b|voiceover|nvda|jaws/],
  ["low-vision", /low vision|poor eyesight|magnif|zoom(s|ed)? in/],
  ["color-blindness", /colou?r ?blind/],
  ["motor", /tremor|motor|parkinson|arthritis|one hand/],
  ["cognitive", /dyslexi|adhd|cognitive|memory loss|easily confused/],
  ["keyboard-only", /keyboard only|keyboard-only|no mouse|without a mouse/],
];

const TRAITS = [
  "impatient",
  "patient",
  "careful",
  "cautious",
  "curious",
  "busy",
  "skeptical",
  "sceptical",
  "price-sensitive",
  "detail-oriented",
  "distracted",
  "confident",
  "anxious",
  "thorough",
];

/** The persona a description describes, by fixed rules: the same words always give the same draft. */
export function ruleAutouserDraft(description: string) {
  const text = words(description);
  const expertise: (typeof EXPERTISE_LEVELS)[number] = has(
    text,
    /first[- ]time|new to|beginner|novice|rarely|not (very )?tech|unfamiliar/,
  )
    ? "novice"
    : has(text, /expert|power user|professional|developer|engineer|daily|advanced/)
      ? "expert"
      : "intermediate";
  const mobile = has(text, /mobile|phone|iphone|android|smartphone|on the go/);
  const network: (typeof NETWORK_PROFILES)[number] = has(text, /3g|very slow|poor (connection|signal)|rural/)
    ? "slow-3g"
    : has(text, /4g|slow (connection|network|internet)|patchy/)
      ? "slow-4g"
      : "fast";
  const goals = [
    ...description.matchAll(
      /\b(?:wants? to|needs? to|tries to|hopes to|goal is to)\s+([^.;,!?]+?)(?=\s+and\s+(?:wants?|needs?|tries|hopes)\s+to\b|[.;,!?]|$)/gi,
    ),
  ]
    .map((m) => capitalize(m[1]!.trim()).slice(0, 500))
    .slice(0, 20);
  const role = firstSentence(description, 200);
  return {
    name: firstSentence(role, 60),
    role,
    description: description.trim().slice(0, 4000),
    goals,
    traits: TRAITS.filter((t) => new RegExp(`\\b${t}\\b`).test(text)),
    expertise,
    accessibilityNeeds: NEEDS.filter(([, pattern]) => pattern.test(text)).map(([need]) => need),
    device: { kind: mobile ? ("mobile" as const) : ("desktop" as const), network },
    status: "draft" as const,
    visibility: "private" as const,
  };
}

const CRITERIA: [RegExp, string, string][] = [
  [/\b(clar|clear|understand)/, "Clarity", "The content and its purpose are easy to understand at a glance."],
  [
    /\b(usab|easy to use|ease\b|intuitive)/,
    "Ease of use",
    "A first-time user can complete the task without help.",
  ],
  [/\baccess/, "Accessibility", "Usable with assistive technology, enough contrast, readable text."],
  [/\b(trust|credib|safe|secur)/, "Trust", "The page feels credible and safe to act on."],
  [
    /\b(visual|aesthetic|beaut|looks?\b|polish)/,
    "Visual quality",
    "Layout, typography and imagery look considered.",
  ],
  [/\b(speed|fast|quick|perform)/, "Speed", "The task can be finished quickly, without waiting or detours."],
  [/\bconsisten/, "Consistency", "Patterns and wording match the rest of the product."],
  [
    /\b(readab|legib|copy\b|wording|tone\b)/,
    "Readability",
    "Text is concise, legible and in a fitting tone.",
  ],
  [/\b(accura|correct|factual|hallucin)/, "Accuracy", "Statements are correct and supported."],
  [/\b(helpful|useful|relevan)/, "Helpfulness", "It addresses what the user actually needs."],
];

/** The template a description asks for, by fixed rules: the same words always give the same draft. */
export function ruleTemplateDraft(description: string) {
  const text = words(description);
  const sxs = has(text, /side[- ]by[- ]side|compar|versus|\bvs\.?\b|a\/b|two versions|which (one|is better)/);
  const media = has(text, /design|screen|image|mock-?up|visual|video|page|layout|ui\b/);
  const type: (typeof TEMPLATE_TYPES)[number] = `${media ? "MEDIA" : "TEXT"}_${sxs ? "SXS" : "SSE"}`;
  const scaleType: (typeof SCALE_TYPES)[number] = has(text, /three[- ]point|3[- ]point/)
    ? "THREE_POINT"
    : has(text, /five[- ]point|5[- ]point/)
      ? "FIVE_POINT"
      : "SEVEN_POINT";
  const contexts: (typeof TEMPLATE_CONTEXTS)[number][] = [];
  if (has(text, /\bux\b|\bui\b|design|usab|page|screen|checkout|flow/)) contexts.push("ui-ux");
  if (has(text, /\bllm\b|\bai\b|chatbot|model|assistant|prompt|response/)) contexts.push("llm-ai");
  if (has(text, /design system|component/)) contexts.push("design-system");
  if (contexts.length === 0) contexts.push("generic");
  const criteria = CRITERIA.filter(([pattern]) => pattern.test(text)).map(([, label, about]) => ({
    id: label.toLowerCase().replace(/[^a-z]+/g, "-"),
    label,
    description: about,
  }));
  return {
    name: firstSentence(description, 80),
    description: description.trim().slice(0, 2000),
    type,
    scaleType,
    guidelines: description.trim(),
    criteria,
    contexts,
    scoringMode: "holistic" as const,
    sxsScoringMode: "holistic" as const,
  };
}

function explainAutouser(d: ReturnType<typeof ruleAutouserDraft>): string[] {
  return [
    `Drafted "${d.name}", a ${d.expertise} user on ${d.device.kind} (${d.device.network} network).\n`,
    d.goals.length
      ? `Goals: ${d.goals.join("; ")}.\n`
      : "No goals stated; add what the persona tries to do.\n",
    d.accessibilityNeeds.length ? `Accessibility needs: ${d.accessibilityNeeds.join(", ")}.\n` : "",
    "Review it, then save it as an autouser.\n",
  ].filter(Boolean);
}

function explainTemplate(d: ReturnType<typeof ruleTemplateDraft>): string[] {
  return [
    `Drafted "${d.name}", a ${d.type} template on a ${d.scaleType.toLowerCase().replace("_", "-")} scale.\n`,
    d.criteria.length
      ? `Criteria: ${d.criteria.map((c) => c.label).join(", ")}.\n`
      : "No criteria recognised; add what raters should judge.\n",
    "Review it, then save it as a template.\n",
  ];
}

/** The drafter of a team without a model. */
export const rulePromptDrafter: PromptDrafter = {
  generator: "rules",
  model: null,
  async draft(kind, description) {
    return kind === "autouser" ? ruleAutouserDraft(description) : ruleTemplateDraft(description);
  },
};

// What the model is asked for: the create bodies' main fields in plain JSON types (no records, no defaults), so
// every provider's structured output can express them; the answer is then checked by the create schemas.
const ModelAutouser = z.object({
  name: z.string(),
  role: z.string(),
  description: z.string(),
  goals: z.array(z.string()),
  traits: z.array(z.string()),
  expertise: z.enum(EXPERTISE_LEVELS),
  accessibilityNeeds: z.array(z.enum(ACCESSIBILITY_NEED_VALUES)),
  device: z.object({ kind: z.enum(["desktop", "mobile"]), network: z.enum(NETWORK_PROFILES) }),
});
const ModelTemplate = z.object({
  name: z.string(),
  description: z.string(),
  type: z.enum(TEMPLATE_TYPES),
  scaleType: z.enum(SCALE_TYPES),
  guidelines: z.string(),
  criteria: z.array(z.object({ id: z.string(), label: z.string(), description: z.string() })),
  contexts: z.array(z.enum(TEMPLATE_CONTEXTS)),
});

const SYSTEM: Record<DraftKind, string> = {
  autouser:
    "You draft a persona for Rubricon, a UX research tool where personas rate designs. From the researcher's " +
    "description, give the persona a short name, a role in a few words, a background description, concrete goals, " +
    "traits, expertise, accessibility needs (only those stated) and the device they use.",
  template:
    "You draft a rating template for Rubricon, a UX research tool. From the researcher's description, give it a " +
    "short name, a description, its type (TEXT or MEDIA, SSE for single items or SXS for side by side), a scale, " +
    "guidelines for raters and the criteria they judge (short kebab-case ids).",
};

/** The drafter of a team with a model: one structured answer, then checked like a create. */
export function modelPromptDrafter(config: ModelConfig): PromptDrafter {
  return {
    generator: "model",
    model: config.model,
    async draft(kind, description, signal) {
      const answer = await generateStructured({
        config,
        system: SYSTEM[kind],
        prompt: description,
        schema: kind === "autouser" ? ModelAutouser : ModelTemplate,
        name: kind === "autouser" ? "persona" : "template",
        signal,
      });
      return kind === "autouser"
        ? { ...(answer as object), status: "draft", visibility: "private" }
        : { ...(answer as object), scoringMode: "holistic", sxsScoringMode: "holistic" };
    },
  };
}

function checked(kind: DraftKind, drafter: PromptDrafter, raw: unknown) {
  const meta = { generator: drafter.generator, model: drafter.model };
  return kind === "autouser"
    ? AutouserPromptDraft.safeParse({ object: "autouser_draft", ...meta, draft: raw })
    : TemplatePromptDraft.safeParse({ object: "template_draft", ...meta, draft: raw });
}

/**
 * Drafts an autouser or a template from a paragraph, through the team's model or the rule-based drafter, as a
 * stream: `start`, the drafter's notes as `text_delta`, then the `draft` (checked against the create body, never
 * saved), or `failed` when the model did not answer a valid draft. The team is resolved before the stream starts,
 * so a wrong team is an ordinary error answer.
 */
export async function startPromptDraft(
  ctx: CoreContext,
  actor: Actor,
  kind: DraftKind,
  input: DraftFromPromptInput,
  drafterFor: (teamId: string) => Promise<PromptDrafter>,
): Promise<(signal: AbortSignal) => AsyncGenerator<PromptDraftEvent>> {
  const { team } = await resolveTargetTeam(ctx.db, actor, input.teamId);
  const drafter = await drafterFor(team.id);
  return async function* (signal) {
    yield { event: "start", data: { kind, generator: drafter.generator, model: drafter.model } };
    let raw: unknown;
    try {
      raw = await drafter.draft(kind, input.description, signal);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      yield {
        event: "failed",
        data: { message: `The model did not answer: ${message}`, reason: "provider_error" },
      };
      return;
    }
    const parsed = checked(kind, drafter, raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      yield {
        event: "failed",
        data: {
          message: `The model's draft is not a valid ${kind}: ${issue.path.join(".")}: ${issue.message}`,
          reason: "invalid_draft",
        },
      };
      return;
    }
    if (drafter.generator === "rules") {
      const notes =
        kind === "autouser"
          ? explainAutouser(raw as ReturnType<typeof ruleAutouserDraft>)
          : explainTemplate(raw as ReturnType<typeof ruleTemplateDraft>);
      for (const delta of notes) yield { event: "text_delta", data: { delta } };
    }
    yield { event: "draft", data: parsed.data };
  };
}
