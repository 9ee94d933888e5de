import { index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { evaluations } from "./evaluations";
import { newestFirst } from "./list-order";
import { teams } from "./teams";
import { users } from "./users";

/** The drafts a conversation holds (`ConversationDrafts` in the contracts), stored whole. */
export type ConversationDraftsRow = {
  evaluation: Record<string, unknown>;
  templates: Record<string, unknown>[];
  autousers: Record<string, unknown>[];
};

/** A builder chat: the user's requests, the assistant's replies and the evaluation drafted between them. */
export const conversations = pgTable(
  "conversations",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    title: text("title"),
    status: text("status", {
      enum: ["active", "needs_review", "ready", "materialized", "archived"],
    })
      .notNull()
      .default("active"),
    drafts: jsonb("drafts").$type<ConversationDraftsRow>().notNull(),
    /** Set once materialized; the unique evaluation it made. */
    evaluationId: text("evaluation_id").references(() => evaluations.id, { onDelete: "set null" }),
    createdTemplateIds: jsonb("created_template_ids").$type<string[]>().notNull().default([]),
    messageCount: integer("message_count").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("conversations_team_order_idx").on(t.teamId, ...newestFirst(t.updatedAt, t.id))],
);

export type MessagePartRow = { type: "text"; text: string };

export const conversationMessages = pgTable(
  "conversation_messages",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    role: text("role", { enum: ["user", "assistant"] }).notNull(),
    parts: jsonb("parts").$type<MessagePartRow[]>().notNull(),
    attachedDesignUrls: jsonb("attached_design_urls").$type<string[]>().notNull().default([]),
    status: text("status", { enum: ["streaming", "complete", "failed"] }).notNull(),
    generator: text("generator", { enum: ["model", "rules"] }),
    error: jsonb("error").$type<{ code: string; message: string }>(),
    /** The user message an assistant reply answers. */
    replyTo: text("reply_to"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("conversation_messages_order_idx").on(t.conversationId, ...newestFirst(t.updatedAt, t.id))],
);

/** The latest AI insights of an evaluation; a worker writes them when they are asked for. */
export const aiInsights = pgTable(
  "ai_insights",
  {
    evaluationId: text("evaluation_id")
      .primaryKey()
      .references(() => evaluations.id, { onDelete: "cascade" }),
    status: text("status", { enum: ["queued", "running", "ready", "failed"] }).notNull(),
    /** The statistics fingerprint of the ratings the summary was asked for (see results/cache). */
    fingerprint: text("fingerprint").notNull(),
    generator: text("generator", { enum: ["model", "extractive"] }),
    model: text("model"),
    ratingCount: integer("rating_count").notNull().default(0),
    payload: jsonb("payload").$type<Record<string, unknown>>(),
    error: jsonb("error").$type<{ code: string; message: string }>(),
    attempts: integer("attempts").notNull().default(0),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true, mode: "date" }),
    requestedAt: timestamp("requested_at", { withTimezone: true, mode: "date" }).notNull(),
    generatedAt: timestamp("generated_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("ai_insights_queue_idx").on(t.status, t.requestedAt)],
);
