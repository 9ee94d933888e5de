import { z } from "zod";
import { DateTime, IdParam } from "./common";
import { EVALUATION_METHODS, EvaluationCreateInput, ShareAccess } from "./evaluations";
import { listOf, PageQueryShape, withCursorRules } from "./pagination";
import { TemplateCreateInput } from "./templates";

export const CONVERSATION_STATUSES = ["active", "needs_review", "ready", "materialized", "archived"] as const;
export const ConversationStatus = z.enum(CONVERSATION_STATUSES);
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** Caps of one user message: what a reply may be asked to read. */
export const MESSAGE_LIMITS = {
  parts: 10,
  partChars: 8000,
  totalChars: 16000,
  designUrls: 20,
} as const;
/** A conversation holds at most this many messages (user and assistant); then a new one is started. */
export const CONVERSATION_MAX_MESSAGES = 200;
/** Drafts hold at most this many templates and autousers each. */
export const DRAFT_MAX_ITEMS = 10;

const DraftRef = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, "refs are 1-40 lowercase letters, digits, `_` and `-`")
  .meta({ description: "The draft's name inside the conversation." });

const create = EvaluationCreateInput.shape;

/**
 * The evaluation being drafted: the fields of `POST /evaluations`, each with its own rules, all optional while
 * the draft is worked on. Its templates and autousers are the conversation's template and autouser drafts.
 */
export const EvaluationDraft = z
  .object({
    name: create.name.optional(),
    description: create.description,
    type: create.type.optional(),
    designUrls: create.designUrls,
    comparisonPairs: create.comparisonPairs,
    // Without the create body's defaults: a draft holds only what was chosen.
    evaluationMethod: z.enum(EVALUATION_METHODS).optional(),
    instructions: create.instructions,
    scenario: create.scenario,
    shareAccess: ShareAccess.optional(),
    allowMultipleRatings: z.boolean().optional(),
    targetRatingsPerComparison: create.targetRatingsPerComparison,
  })
  .strict()
  .meta({ id: "EvaluationDraft", description: "The drafted evaluation: `POST /evaluations` fields." });
export type EvaluationDraft = z.infer<typeof EvaluationDraft>;

/** A new template's fields: the body of `POST /templates` without `teamId` (the conversation's team owns it). */
export const TemplateDraftBody = TemplateCreateInput.omit({ teamId: true });

/** A template the evaluation will use: an existing one by id (system or the team's), or a new one to create. */
export const TemplateDraft = z
  .object({
    ref: DraftRef,
    templateId: IdParam.optional().meta({ description: "Use this existing template as it is." }),
    template: TemplateDraftBody.optional().meta({ description: "Create this template on materialize." }),
    reason: z.string().max(500).optional().meta({ description: "Why the assistant chose it." }),
  })
  .strict()
  .meta({ id: "TemplateDraft" });
export type TemplateDraft = z.infer<typeof TemplateDraft>;

/** An autouser the evaluation will run: an existing one (a system persona or the team's) with its agent count. */
export const AutouserDraft = z
  .object({
    ref: DraftRef,
    autouserId: IdParam.optional(),
    agentCount: z.number().int().min(1).max(50).optional(),
    reason: z.string().max(500).optional(),
  })
  .strict()
  .meta({ id: "AutouserDraft" });
export type AutouserDraft = z.infer<typeof AutouserDraft>;

export const ConversationDrafts = z
  .object({
    evaluation: EvaluationDraft,
    templates: z.array(TemplateDraft).max(DRAFT_MAX_ITEMS),
    autousers: z.array(AutouserDraft).max(DRAFT_MAX_ITEMS),
  })
  .strict()
  .meta({ id: "ConversationDrafts" });
export type ConversationDrafts = z.infer<typeof ConversationDrafts>;

export const EMPTY_DRAFTS: ConversationDrafts = { evaluation: {}, templates: [], autousers: [] };

export const DraftIssue = z
  .object({
    param: z
      .string()
      .meta({ description: "Where, e.g. `evaluation.name` or `templates[0].template.scaleMax`." }),
    message: z.string(),
  })
  .meta({ id: "DraftIssue" });
export type DraftIssue = z.infer<typeof DraftIssue>;

export const Conversation = z
  .object({
    id: z.string(),
    object: z.literal("conversation"),
    teamId: z.string(),
    userId: z.string().nullable(),
    title: z.string().nullable(),
    status: ConversationStatus,
    drafts: ConversationDrafts,
    issues: z.array(DraftIssue).meta({ description: "What keeps the drafts from being materialized." }),
    evaluationId: z.string().nullable().meta({ description: "The evaluation it was materialized into." }),
    messageCount: z.number().int(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: "Conversation" });
export type Conversation = z.infer<typeof Conversation>;
export const ConversationList = listOf(Conversation, "ConversationList");

export const TextPart = z
  .object({
    type: z.literal("text"),
    text: z.string().min(1).max(MESSAGE_LIMITS.partChars),
  })
  .strict();

export const ConversationMessage = z
  .object({
    id: z.string(),
    object: z.literal("conversation_message"),
    conversationId: z.string(),
    role: z.enum(["user", "assistant"]),
    parts: z.array(z.object({ type: z.literal("text"), text: z.string() })),
    attachedDesignUrls: z.array(z.string()),
    status: z.enum(["streaming", "complete", "failed"]).meta({
      description:
        "An assistant reply is `streaming` while written, then `complete`, or `failed` with `error`.",
    }),
    generator: z.enum(["model", "rules"]).nullable().meta({
      description: "What wrote an assistant reply: the team's model, or the rule-based builder.",
    }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    createdAt: DateTime,
  })
  .meta({ id: "ConversationMessage" });
export type ConversationMessage = z.infer<typeof ConversationMessage>;
export const ConversationMessageList = listOf(ConversationMessage, "ConversationMessageList");

export const ConversationCreateInput = z
  .object({
    teamId: z.string().min(1).max(100).optional().meta({
      description: "Session callers pick a team; keys act on theirs.",
    }),
    title: z.string().trim().min(1).max(200).optional(),
  })
  .strict();
export type ConversationCreateInput = z.infer<typeof ConversationCreateInput>;

export const ConversationUpdateInput = z
  .object({
    title: z.string().trim().min(1).max(200).optional(),
    status: z.enum(["archived", "active"]).optional().meta({
      description:
        "`archived` closes the conversation; `active` reopens it (its status follows its drafts again).",
    }),
    drafts: ConversationDrafts.optional().meta({
      description: "Replaces the drafts, e.g. after editing them.",
    }),
  })
  .strict();
export type ConversationUpdateInput = z.infer<typeof ConversationUpdateInput>;

export const ConversationListQuery = withCursorRules(
  z.object({
    ...PageQueryShape,
    teamId: z.string().min(1).max(100).meta({ description: "Session callers: only this team." }).optional(),
  }),
);

/** The spec's message body; the route adds its path id and `Last-Event-ID`. */
export const MessageCreateShape = {
  role: z.literal("user"),
  parts: z.array(TextPart).min(1).max(MESSAGE_LIMITS.parts),
  attachedDesignUrls: z
    .array(z.url({ protocol: /^https?$/ }).max(2048))
    .max(MESSAGE_LIMITS.designUrls)
    .default([]),
};

/** A message's whole text is capped as well as each part's. */
export function checkMessageLength(m: { parts: { text: string }[] }, ctx: z.RefinementCtx): void {
  const total = m.parts.reduce((n, p) => n + p.text.length, 0);
  if (total > MESSAGE_LIMITS.totalChars) {
    ctx.addIssue({
      code: "custom",
      path: ["parts"],
      message: `A message holds at most ${MESSAGE_LIMITS.totalChars} characters of text; this one has ${total}.`,
    });
  }
}

export const MessageCreateInput = z.object(MessageCreateShape).strict().superRefine(checkMessageLength);
export type MessageCreateInput = z.infer<typeof MessageCreateInput>;

/** The answer of materializing: the evaluation and what was created with it. */
export const MaterializedConversation = z
  .object({
    object: z.literal("materialized_conversation"),
    conversation: Conversation,
    evaluationId: z.string(),
    templateIds: z.array(z.string()).meta({ description: "The templates the evaluation uses, in order." }),
    createdTemplateIds: z.array(z.string()),
  })
  .meta({ id: "MaterializedConversation" });
export type MaterializedConversation = z.infer<typeof MaterializedConversation>;
