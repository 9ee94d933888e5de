import {
  Conversation,
  ConversationCreateInput,
  ConversationList,
  ConversationListQuery,
  ConversationMessageList,
  ConversationUpdateInput,
  checkMessageLength,
  IdParam,
  MaterializedConversation,
  MessageCreateShape,
  PageQueryShape,
  withCursorRules,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import { toErrorEnvelope } from "../http/error-envelope";
import { assistantFor } from "../models";
import type { RequestContext } from "../request/context";
import type { ServerSentEvent } from "../request/reply";
import { apiProcedure, router } from "../trpc/init";
import { toList } from "./list";

const tags = ["Conversations"];
const ById = z.object({ id: IdParam });

/** Replies per user per minute: each may spend a model call on the team's key. */
export const REPLY_LIMIT = { key: "user", limit: 20, windowSec: 60, bucket: "assistant-replies" } as const;

const MessageStreamInput = z
  .object({
    id: IdParam,
    lastEventId: z.string().max(200).optional(),
    ...MessageCreateShape,
  })
  .strict()
  .superRefine(checkMessageLength);

function toServerEvent(ctx: RequestContext, messageId: string, e: core.ReplyEvent): ServerSentEvent {
  // Events rebuilt from the stored reply carry no id: there is nothing after them to resume.
  const id = e.seq > 0 ? `${messageId}:${e.seq}` : undefined;
  if (e.kind === "failed") {
    const error = new core.ApiError("model_error", e.data.message, {
      details: { messageId: e.data.messageId, reason: e.data.code },
    });
    return {
      ...(id ? { id } : {}),
      event: "error",
      data: toErrorEnvelope(error, ctx.requestId, ctx.services.env.baseUrl),
    };
  }
  return { ...(id ? { id } : {}), event: e.kind, data: e.data };
}

export const conversationsRouter = router({
  // GET /conversations — the builder chats of the caller's teams, newest first
  list: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/conversations",
        tags,
        summary: "List conversations",
        description: "The builder chats of the caller's teams, newest first.",
      },
      scope: "evaluations:read",
    })
    .input(ConversationListQuery)
    .output(ConversationList)
    .query(async ({ ctx, input }) => toList(ctx, await core.listConversations(ctx.core, ctx.actor, input))),

  // POST /conversations — start a builder chat
  create: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/conversations",
        tags,
        summary: "Start a conversation",
        description:
          "A builder chat: describe what you want to learn, and the assistant drafts the evaluation, its templates and autousers.",
      },
      scope: "evaluations:write",
      successStatus: 201,
    })
    .input(ConversationCreateInput)
    .output(Conversation)
    .mutation(({ ctx, input }) => core.createConversation(ctx.core, ctx.actor, input)),

  // GET /conversations/{id} — one conversation with its drafts and what they still lack
  get: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/conversations/{id}",
        tags,
        summary: "Retrieve a conversation",
        description:
          "One builder chat with its drafts and what they still lack before an evaluation can be created.",
      },
      scope: "evaluations:read",
    })
    .input(ById)
    .output(Conversation)
    .query(({ ctx, input }) => core.getConversation(ctx.core, ctx.actor, input.id)),

  // PATCH /conversations/{id} — rename, archive or reopen, or replace the drafts
  update: apiProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/conversations/{id}",
        tags,
        summary: "Update a conversation",
        description:
          "`drafts` replaces the drafts (the dashboard's editable forms); the status follows them: `needs_review` while " +
          "anything is missing or invalid (see `issues`), `ready` when they can be materialized. `status: archived` " +
          "closes the conversation; `status: active` reopens it.",
      },
      scope: "evaluations:write",
    })
    .input(ConversationUpdateInput.extend({ id: IdParam }))
    .output(Conversation)
    .mutation(({ ctx, input: { id, ...patch } }) => core.updateConversation(ctx.core, ctx.actor, id, patch)),

  // GET /conversations/{id}/messages — the messages, newest first
  messages: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/conversations/{id}/messages",
        tags,
        summary: "List messages",
        description: "The chat's messages, newest first.",
      },
      scope: "evaluations:read",
    })
    .input(withCursorRules(z.object({ ...PageQueryShape, id: IdParam })))
    .output(ConversationMessageList)
    .query(async ({ ctx, input: { id, ...query } }) =>
      toList(ctx, await core.listMessages(ctx.core, ctx.actor, id, query)),
    ),

  // POST /conversations/{id}/messages — send a message; the assistant's reply streams back
  send: apiProcedure
    .meta({
      stream: {
        method: "POST",
        path: "/conversations/{id}/messages",
        tags,
        summary: "Send a message",
        description:
          "Stores the message and streams the assistant's reply. The reply is written by the team's model (BYOK key, " +
          "else the platform default) with tools that edit the drafts, or, with no model, by the rule-based builder. " +
          "It is stored whole even if the client disconnects: resend the same request with `Last-Event-ID` to get " +
          "the rest, or read it from `GET /conversations/{id}/messages`. One reply at a time per conversation (409 " +
          "`reply_in_progress`); 20 replies a minute per user (429). A reply is stopped after 60 seconds or 20,000 " +
          "characters; a failed reply ends with an `error` event and leaves the drafts as they were.",
        events: {
          message_start:
            "`{conversationId, messageId, userMessage, generator}`: the stored user message and the reply's id",
          text_delta: "`{messageId, delta}`: the next piece of the reply's text",
          drafts: "the Conversation after the reply: drafts, `issues` and status",
          message: "the stored ConversationMessage of the reply; the last event",
          error: "an ErrorEnvelope (`model_error`, `details.reason`); the reply failed and the stream ends",
        },
      },
      scope: "evaluations:write",
      routeLimit: REPLY_LIMIT,
      maxBodyBytes: 64 * 1024,
    })
    .input(MessageStreamInput)
    .subscription(async function* ({ ctx, input, signal }): AsyncGenerator<ServerSentEvent> {
      const { id, lastEventId, ...message } = input;
      const stop = signal ?? new AbortController().signal;
      if (lastEventId) {
        const resumed = await core.resumeReply(ctx.core, ctx.actor, id, lastEventId, stop);
        for await (const e of resumed.events) yield toServerEvent(ctx, resumed.messageId, e);
        return;
      }
      const reply = await core.startReply(ctx.core, ctx.actor, id, message, assistantFor(ctx.services));
      for await (const e of reply.events.follow(0, stop)) yield toServerEvent(ctx, reply.messageId, e);
    }),

  // POST /conversations/{id}/evaluations — create the drafted templates and Draft evaluation, once
  materialize: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/conversations/{id}/evaluations",
        tags,
        summary: "Create the drafted evaluation",
        description:
          "Creates the drafted templates and a Draft evaluation in one transaction, with the same rules as `POST " +
          "/templates` and `POST /evaluations`; the conversation becomes `materialized`. Idempotent: later calls " +
          "answer 200 with what the first created. Drafts with issues are refused with 400 `conversation_not_ready` " +
          "(`details.issues`).",
      },
      scope: "evaluations:write",
      successStatus: 201,
    })
    .input(ById.strict())
    .output(MaterializedConversation)
    .mutation(async ({ ctx, input }) => {
      const { result, created } = await core.materializeConversation(ctx.core, ctx.actor, input.id);
      if (!created) ctx.response.status = 200;
      return result;
    }),
});
