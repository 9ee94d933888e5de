import { CONVERSATION_MAX_MESSAGES, type MessageCreateInput } from "@rubricon/contracts";
import { conversationMessages, newId } from "@rubricon/db";
import { and, eq } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError } from "../../kernel";
import type { Assistant } from "./assistant";
import {
  appendMessage,
  assertOpen,
  loadVisibleConversation,
  toConversation,
  toMessage,
} from "./conversations";
import { hubs, type ReplyEvent, ReplyHub } from "./reply-hub";
import { REPLY_TIME_LIMIT_MS, runReply } from "./run-reply";

export { type ReplyEvent, ReplyHub } from "./reply-hub";
export { REPLY_MAX_CHARS, REPLY_TIME_LIMIT_MS } from "./run-reply";

/** A reply still `streaming` after this long was cut off by a process that died; a new one may start. */
const STALE_REPLY_MS = REPLY_TIME_LIMIT_MS + 30_000;

/** Stores the user's message and an empty assistant reply, refusing a closed or full conversation or a second reply. */
async function openReply(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  input: MessageCreateInput,
  generator: "model" | "rules",
) {
  return ctx.db.transaction(async (tx) => {
    const row = await loadVisibleConversation(tx, actor, id, { forUpdate: true });
    assertOpen(row);
    if (row.messageCount + 2 > CONVERSATION_MAX_MESSAGES) {
      throw new ApiError(
        "conversation_full",
        `Conversation ${id} holds its ${CONVERSATION_MAX_MESSAGES} messages; start a new conversation.`,
      );
    }
    const now = ctx.clock.now();
    const [running] = await tx
      .select({ id: conversationMessages.id, createdAt: conversationMessages.createdAt })
      .from(conversationMessages)
      .where(and(eq(conversationMessages.conversationId, id), eq(conversationMessages.status, "streaming")))
      .limit(1);
    if (running && now.getTime() - running.createdAt.getTime() < STALE_REPLY_MS) {
      throw new ApiError(
        "reply_in_progress",
        `The assistant is still answering the previous message (${running.id}); wait for it, or resume its stream with \`Last-Event-ID\`.`,
        { details: { messageId: running.id } },
      );
    }
    if (running) {
      await tx
        .update(conversationMessages)
        .set({
          status: "failed",
          error: { code: "reply_interrupted", message: "The reply was interrupted." },
        })
        .where(eq(conversationMessages.id, running.id));
    }
    const userMessage = await appendMessage(tx, row, {
      id: newId("conversationMessage"),
      role: "user",
      parts: input.parts,
      attachedDesignUrls: input.attachedDesignUrls,
      status: "complete",
      generator: null,
      createdAt: now,
      updatedAt: now,
    });
    // One millisecond later, so the reply lists after the message it answers.
    const later = new Date(now.getTime() + 1);
    const assistantMessage = await appendMessage(
      tx,
      { ...row, messageCount: row.messageCount + 1 },
      {
        id: newId("conversationMessage"),
        role: "assistant",
        parts: [],
        status: "streaming",
        generator,
        replyTo: userMessage.id,
        createdAt: later,
        updatedAt: later,
      },
    );
    return { row, userMessage, assistantMessage };
  });
}

/** Replies still being written, so a process that stops can wait for them to be stored. */
const running = new Set<Promise<void>>();

/** Waits for the replies this process is writing (graceful shutdown). */
export async function settleReplies(): Promise<void> {
  await Promise.all(running);
}

/**
 * `POST /conversations/{id}/messages`: stores the message, starts the reply and answers its events. The reply
 * runs to its end and is stored even if the caller goes away; following the events does not drive it.
 */
export async function startReply(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  input: MessageCreateInput,
  assistantFor: (teamId: string) => Promise<Assistant>,
): Promise<{ messageId: string; events: ReplyHub }> {
  const { teamId } = await loadVisibleConversation(ctx.db, actor, id);
  const assistant = await assistantFor(teamId);
  const { row, userMessage, assistantMessage } = await openReply(ctx, actor, id, input, assistant.generator);
  const hub = new ReplyHub();
  hubs.set(assistantMessage.id, hub);
  hub.push({
    kind: "message_start",
    data: {
      conversationId: id,
      messageId: assistantMessage.id,
      userMessage: toMessage(userMessage),
      generator: assistant.generator,
    },
  });
  const job = runReply(ctx, assistant, row, userMessage, assistantMessage, hub);
  running.add(job);
  void job.finally(() => running.delete(job));
  return { messageId: assistantMessage.id, events: hub };
}

/** Parses a reply event id, `<messageId>:<seq>`. */
export function parseReplyEventId(value: string): { messageId: string; seq: number } | null {
  const match = /^(msg_[a-z0-9]{1,60}):(\d{1,6})$/.exec(value);
  return match ? { messageId: match[1]!, seq: Number(match[2]) } : null;
}

/**
 * The rest of a reply for a client that reconnects with `Last-Event-ID`: the events it missed while the reply is
 * known to this process; otherwise, once the stored reply is finished, its drafts and whole message.
 */
export async function resumeReply(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  lastEventId: string,
  signal: AbortSignal,
): Promise<{ messageId: string; events: AsyncGenerator<ReplyEvent> }> {
  await loadVisibleConversation(ctx.db, actor, id);
  const parsed = parseReplyEventId(lastEventId);
  const find = async () => {
    if (!parsed) return undefined;
    const [m] = await ctx.db
      .select()
      .from(conversationMessages)
      .where(
        and(
          eq(conversationMessages.id, parsed.messageId),
          eq(conversationMessages.conversationId, id),
          eq(conversationMessages.role, "assistant"),
        ),
      )
      .limit(1);
    return m;
  };
  const message = await find();
  if (!parsed || !message) {
    throw ApiError.invalid("Last-Event-ID", "`Last-Event-ID` names no reply of this conversation.");
  }
  const hub = hubs.get(message.id);
  if (hub) return { messageId: message.id, events: hub.follow(parsed.seq, signal) };
  const events = (async function* (): AsyncGenerator<ReplyEvent> {
    let current = message;
    const deadline = Date.now() + STALE_REPLY_MS;
    while (current.status === "streaming" && Date.now() < deadline && !signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      current = (await find()) ?? current;
    }
    if (current.status === "failed") {
      yield {
        seq: 0,
        kind: "failed",
        data: {
          messageId: current.id,
          code: current.error?.code ?? "model_error",
          message: current.error?.message ?? "The reply failed.",
        },
      };
      return;
    }
    const conversation = await loadVisibleConversation(ctx.db, actor, id);
    yield { seq: 0, kind: "drafts", data: await toConversation(ctx.db, conversation) };
    yield { seq: 0, kind: "message", data: toMessage(current) };
  })();
  return { messageId: message.id, events };
}
