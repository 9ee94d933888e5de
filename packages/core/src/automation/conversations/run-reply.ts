import type { ConversationDrafts } from "@rubricon/contracts";
import { autousers, conversationMessages, conversations, type PersonaRow, templates } from "@rubricon/db";
import { and, desc, eq, isNull, or } from "drizzle-orm";
import type { CoreContext } from "../../kernel";
import { ApiError } from "../../kernel";
import type { Assistant, ReplySink } from "./assistant";
import {
  type ConversationRow,
  type MessageRow,
  saveDrafts,
  toConversation,
  toMessage,
} from "./conversations";
import { draftIssues } from "./drafts";
import type { ReplyHub } from "./reply-hub";
import type { BuilderCatalog } from "./rule-builder";

/** A reply is cut off after this long; the text so far is kept and the stream ends with an error. */
export const REPLY_TIME_LIMIT_MS = 60_000;
/** A reply longer than this is cut off (a model that does not stop). */
export const REPLY_MAX_CHARS = 20_000;
/** Earlier messages an assistant reads. */
const HISTORY_MESSAGES = 20;

async function loadCatalog(ctx: CoreContext, teamId: string): Promise<BuilderCatalog> {
  const [tpl, personas] = await Promise.all([
    ctx.db
      .select({ id: templates.id, name: templates.name })
      .from(templates)
      .where(or(eq(templates.isSystem, true), eq(templates.teamId, teamId))),
    ctx.db
      .select({ id: autousers.id, name: autousers.name, role: autousers.role, persona: autousers.persona })
      .from(autousers)
      .where(or(and(eq(autousers.isSystem, true), isNull(autousers.teamId)), eq(autousers.teamId, teamId))),
  ]);
  return {
    templates: tpl,
    personas: personas.map((p) => {
      const persona = p.persona as PersonaRow;
      return {
        id: p.id,
        name: p.name,
        description: `${p.role}. ${persona.description ?? ""}`,
        deviceKind: persona.device?.kind ?? "desktop",
        accessibilityNeeds: persona.accessibilityNeeds ?? [],
        expertise: persona.expertise ?? "intermediate",
      };
    }),
  };
}

function textOf(row: Pick<MessageRow, "parts">): string {
  return row.parts.map((p) => p.text).join("\n");
}

async function loadHistory(ctx: CoreContext, conversationId: string) {
  const rows = await ctx.db
    .select({ role: conversationMessages.role, parts: conversationMessages.parts })
    .from(conversationMessages)
    .where(
      and(
        eq(conversationMessages.conversationId, conversationId),
        eq(conversationMessages.status, "complete"),
      ),
    )
    .orderBy(desc(conversationMessages.createdAt), desc(conversationMessages.id))
    .limit(HISTORY_MESSAGES);
  return rows.reverse().map((r) => ({ role: r.role, text: textOf(r) }));
}

function failureOf(err: unknown, timedOut: boolean, cutOff: boolean): { code: string; message: string } {
  if (timedOut)
    return {
      code: "reply_timeout",
      message: `The reply took longer than ${REPLY_TIME_LIMIT_MS / 1000} seconds and was stopped.`,
    };
  if (cutOff)
    return {
      code: "reply_too_long",
      message: `The reply passed ${REPLY_MAX_CHARS} characters and was stopped.`,
    };
  if (err instanceof ApiError) return { code: err.code, message: err.message };
  // Provider errors can carry request details; only their kind is shown.
  const name = err instanceof Error && err.name !== "Error" ? ` (${err.name})` : "";
  return {
    code: "model_error",
    message: `The model failed to answer${name}. Your message is saved; send it again to retry.`,
  };
}

/** Runs the assistant to its end whether or not anyone still listens, storing the reply and the drafts it made. */
export async function runReply(
  ctx: CoreContext,
  assistant: Assistant,
  row: ConversationRow,
  userMessage: MessageRow,
  assistantMessage: MessageRow,
  hub: ReplyHub,
): Promise<void> {
  const controller = new AbortController();
  let timedOut = false;
  let cutOff = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, REPLY_TIME_LIMIT_MS);
  timer.unref?.();
  let text = "";
  let drafts = structuredClone(row.drafts as ConversationDrafts);
  const sink: ReplySink = {
    text(delta) {
      if (cutOff || controller.signal.aborted || delta.length === 0) return;
      if (text.length + delta.length > REPLY_MAX_CHARS) {
        delta = delta.slice(0, REPLY_MAX_CHARS - text.length);
        cutOff = true;
        controller.abort();
      }
      text += delta;
      if (delta) hub.push({ kind: "text_delta", data: { messageId: assistantMessage.id, delta } });
    },
    setDrafts(next) {
      drafts = next;
    },
    drafts: () => drafts,
  };
  let failure: { code: string; message: string } | null = null;
  try {
    const [history, catalog] = await Promise.all([loadHistory(ctx, row.id), loadCatalog(ctx, row.teamId)]);
    await assistant.reply(
      {
        history: history.filter((h) => h.text.length > 0).slice(0, -1),
        message: { text: textOf(userMessage), attachedDesignUrls: userMessage.attachedDesignUrls },
        catalog,
        issues: (d) => draftIssues(ctx.db, row.teamId, d),
      },
      sink,
      controller.signal,
    );
    if (timedOut || cutOff) failure = failureOf(null, timedOut, cutOff);
  } catch (err) {
    failure = failureOf(err, timedOut, cutOff);
    if (failure.code === "model_error") console.error(`conversation ${row.id}: the assistant failed:`, err);
  } finally {
    clearTimeout(timer);
  }
  try {
    const stored = await ctx.db.transaction(async (tx) => {
      const [current] = await tx
        .select()
        .from(conversations)
        .where(eq(conversations.id, row.id))
        .for("update");
      let conversation = current;
      // A failed reply leaves the drafts as they were; one that finished saves its drafts unless the conversation
      // was closed meanwhile.
      if (!failure && current && current.status !== "materialized" && current.status !== "archived") {
        conversation = await saveDrafts(tx, current, drafts, ctx.clock.now());
      }
      const [message] = await tx
        .update(conversationMessages)
        .set({
          parts: text ? [{ type: "text", text }] : [],
          status: failure ? "failed" : "complete",
          error: failure,
          updatedAt: ctx.clock.now(),
        })
        .where(eq(conversationMessages.id, assistantMessage.id))
        .returning();
      return {
        conversation: conversation ? await toConversation(tx, conversation) : null,
        message: toMessage(message!),
      };
    });
    if (failure) {
      hub.push({ kind: "failed", data: { messageId: assistantMessage.id, ...failure } });
    } else {
      if (stored.conversation) hub.push({ kind: "drafts", data: stored.conversation });
      hub.push({ kind: "message", data: stored.message });
    }
  } catch (err) {
    console.error(`conversation ${row.id}: the reply could not be stored:`, err);
    hub.push({
      kind: "failed",
      data: {
        messageId: assistantMessage.id,
        code: "internal_error",
        message: "The reply could not be stored.",
      },
    });
  } finally {
    hub.finish();
  }
}
