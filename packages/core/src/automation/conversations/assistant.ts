import type { ConversationDrafts, DraftIssue } from "@rubricon/contracts";
import type { BuilderCatalog } from "./rule-builder";

/** Where an assistant writes its reply as it goes: text as it comes, drafts whenever a tool changes them. */
export interface ReplySink {
  text(delta: string): void;
  setDrafts(drafts: ConversationDrafts): void;
  /** The drafts as they stand, with the edits of this reply so far. */
  drafts(): ConversationDrafts;
}

export interface AssistantInput {
  /** Earlier messages, oldest first (the latest few only). */
  history: { role: "user" | "assistant"; text: string }[];
  message: { text: string; attachedDesignUrls: string[] };
  catalog: BuilderCatalog;
  /** What keeps drafts from being materialized, checked as materializing would. */
  issues(drafts: ConversationDrafts): Promise<DraftIssue[]>;
}

/** Writes one assistant reply: the team's model, or the rule-based builder. */
export interface Assistant {
  generator: "model" | "rules";
  /** A model's name, for the record; null for the rule-based builder. */
  model: string | null;
  reply(input: AssistantInput, sink: ReplySink, signal: AbortSignal): Promise<void>;
}
