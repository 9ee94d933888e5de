import {
  CONVERSATION_MAX_MESSAGES,
  type Conversation,
  type ConversationDrafts,
  type ConversationMessage,
  type MessageCreateInput,
} from "@rubricon/contracts";
import {
  autousers,
  conversationMessages,
  conversations,
  newId,
  type PersonaRow,
  templates,
} from "@rubricon/db";
import { and, desc, eq, isNull, or } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, BoundedMap } from "../../kernel";
import type { Assistant, ReplySink } from "./assistant";
import {
  appendMessage,
  assertOpen,
  type ConversationRow,
  loadVisibleConversation,
  type MessageRow,
  saveDrafts,
  toConversation,
  toMessage,
} from "./conversations";
import { draftIssues } from "./drafts";
import type { BuilderCatalog } from "./rule-builder";

/** A reply is cut off after this long; the text so far is kept and the stream ends with an error. */
export const REPLY_TIME_LIMIT_MS = 60_000;
/** A reply longer than this is cut off (a model that does not stop). */
export const REPLY_MAX_CHARS = 20_000;
/** Earlier messages an assistant reads. */
const HISTORY_MESSAGES = 20;

/** One event of a reply as it is sent; `seq` orders them and names where a reconnecting client resumes. */
export type ReplyEvent =
  | {
      seq: number;
      kind: "message_start";
      data: {
        conversationId: string;
        messageId: string;
        userMessage: ConversationMessage;
        generator: "model" | "rules";
      };
    }
  | { seq: number; kind: "text_delta"; data: { messageId: string; delta: string } }
  | { seq: number; kind: "drafts"; data: Conversation }
  | { seq: number; kind: "message"; data: ConversationMessage }
  | { seq: number; kind: "failed"; data: { messageId: string; code: string; message: string } };

type ReplyEventBody = ReplyEvent extends infer E ? (E extends ReplyEvent ? Omit<E, "seq"> : never) : never;

/** The events of one reply, kept in memory while it runs and for a while after, so a client can resume. */
export class ReplyHub {
  readonly events: ReplyEvent[] = [];
  done = false;
  private wake: (() => void)[] = [];

  push(event: ReplyEventBody): void {
    this.events.push({ ...event, seq: this.events.length + 1 } as ReplyEvent);
    this.notify();
  }

  finish(): void {
    this.done = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = [];
    for (const w of wake) w();
  }

  /** The events after `afterSeq`, as they come, until the reply ends or `signal` aborts. */
  async *follow(afterSeq: number, signal: AbortSignal): AsyncGenerator<ReplyEvent> {
    let next = afterSeq;
    let stopWaiting: (() => void) | null = null;
    const onAbort = () => stopWaiting?.();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      for (;;) {
        while (next < this.events.length) yield this.events[next++]!;
        if (this.done || signal.aborted) return;
        await new Promise<void>((resolve) => {
          stopWaiting = resolve;
          this.wake.push(resolve);
        });
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }
}

/** Replies of this process by assistant message id; bounded, so finished ones age out. */
const hubs = new BoundedMap<string, ReplyHub>(1000);

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
async function runReply(
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
