import { type ModelConfig, streamAssistantReply } from "@rubricon/agents";
import {
  AutouserDraft,
  type ConversationDrafts,
  DRAFT_MAX_ITEMS,
  EvaluationDraft,
  TemplateDraft,
} from "@rubricon/contracts";
import { z } from "zod";
import type { Assistant, AssistantInput, ReplySink } from "./assistant";

function system(input: AssistantInput, drafts: ConversationDrafts): string {
  const templates = input.catalog.templates.map((t) => `- ${t.id}: ${t.name}`).join("\n");
  const personas = input.catalog.personas
    .map(
      (p) =>
        `- ${p.id}: ${p.name} (${p.deviceKind}, ${p.expertise}${p.accessibilityNeeds.length ? `, ${p.accessibilityNeeds.join(", ")}` : ""}): ${p.description}`,
    )
    .join("\n");
  return [
    "You help a UX researcher set up an evaluation on Rubricon. Draft it with the tools: set_evaluation (name, type SSE",
    "for rating single designs or SxS for side-by-side pairs, designUrls or comparisonPairs, scenario, evaluationMethod),",
    "add_template / remove_template (how raters score: an existing template id, or a new template), add_autouser /",
    "remove_autouser (automated persona raters; set evaluationMethod to both when you add one). Use only links the user",
    "gave. After the tools, answer briefly: what you drafted, and what you still need from the user.",
    `\nTemplates available:\n${templates}`,
    `\nPersonas available:\n${personas || "(none)"}`,
    `\nThe drafts so far:\n${JSON.stringify(drafts)}`,
  ].join("\n");
}

async function afterEdit(input: AssistantInput, sink: ReplySink): Promise<string> {
  const issues = await input.issues(sink.drafts());
  return issues.length === 0
    ? "Saved. The drafts are complete."
    : `Saved. Still missing or invalid: ${issues.map((i) => `${i.param}: ${i.message}`).join("; ")}`;
}

/** The tools the model edits the drafts with; each checks its input by the drafts' own schemas. */
function draftTools(input: AssistantInput, sink: ReplySink) {
  const edit = async (change: (d: ConversationDrafts) => string | null) => {
    const next = structuredClone(sink.drafts());
    const refusal = change(next);
    if (refusal) return refusal;
    sink.setDrafts(next);
    return afterEdit(input, sink);
  };
  return {
    set_evaluation: {
      description: "Set fields of the drafted evaluation (only the fields given change).",
      inputSchema: EvaluationDraft,
      execute: (value: unknown) =>
        edit((d) => {
          d.evaluation = { ...d.evaluation, ...EvaluationDraft.parse(value) };
          return null;
        }),
    },
    add_template: {
      description:
        "Add a template raters score with: `templateId` of an available one, or `template` for a new one.",
      inputSchema: TemplateDraft,
      execute: (value: unknown) =>
        edit((d) => {
          const t = TemplateDraft.parse(value);
          if (d.templates.length >= DRAFT_MAX_ITEMS) return `At most ${DRAFT_MAX_ITEMS} templates.`;
          d.templates = [...d.templates.filter((x) => x.ref !== t.ref), t];
          return null;
        }),
    },
    remove_template: {
      description: "Remove a drafted template by its ref.",
      inputSchema: z.object({ ref: z.string() }),
      execute: (value: unknown) =>
        edit((d) => {
          const { ref } = z.object({ ref: z.string() }).parse(value);
          d.templates = d.templates.filter((t) => t.ref !== ref);
          return null;
        }),
    },
    add_autouser: {
      description: "Add an autouser (an available persona's id) with how many agents of it rate.",
      inputSchema: AutouserDraft,
      execute: (value: unknown) =>
        edit((d) => {
          const a = AutouserDraft.parse(value);
          if (d.autousers.length >= DRAFT_MAX_ITEMS) return `At most ${DRAFT_MAX_ITEMS} autousers.`;
          d.autousers = [...d.autousers.filter((x) => x.ref !== a.ref), a];
          return null;
        }),
    },
    remove_autouser: {
      description: "Remove a drafted autouser by its ref.",
      inputSchema: z.object({ ref: z.string() }),
      execute: (value: unknown) =>
        edit((d) => {
          const { ref } = z.object({ ref: z.string() }).parse(value);
          d.autousers = d.autousers.filter((a) => a.ref !== ref);
          return null;
        }),
    },
  };
}

/** The assistant of a team with a model: the model streams its reply and edits the drafts with tools. */
export function modelAssistant(config: ModelConfig): Assistant {
  return {
    generator: "model",
    model: config.model,
    async reply(input, sink, signal) {
      await streamAssistantReply({
        config,
        system: system(input, sink.drafts()),
        messages: [
          ...input.history,
          {
            role: "user",
            text:
              input.message.attachedDesignUrls.length > 0
                ? `${input.message.text}\n\nAttached designs: ${input.message.attachedDesignUrls.join(" ")}`
                : input.message.text,
          },
        ],
        tools: draftTools(input, sink),
        onText: (delta) => sink.text(delta),
        signal,
      });
    },
  };
}
