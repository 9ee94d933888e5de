import {
  type Conversation,
  type ConversationCreateInput,
  type ConversationDrafts,
  type ConversationMessage,
  type ConversationUpdateInput,
  EMPTY_DRAFTS,
  type PageQuery,
} from "@rubricon/contracts";
import { conversationMessages, conversations, type DbOrTx, newId } from "@rubricon/db";
import { eq, inArray, sql } from "drizzle-orm";
import { actorTeamIds, resolveTargetTeam } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, paginate } from "../../kernel";
import { draftIssues, statusForDrafts } from "./drafts";

export type ConversationRow = typeof conversations.$inferSelect;
export type MessageRow = typeof conversationMessages.$inferSelect;

export function conversationNotFound(id: string): ApiError {
  return ApiError.notFound("conversation_not_found", `No such conversation: ${id}.`);
}

/** The conversation if the actor may act on its team; anything else is the same 404. */
export async function loadVisibleConversation(
  db: DbOrTx,
  actor: Actor,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ConversationRow> {
  const query = db.select().from(conversations).where(eq(conversations.id, id)).limit(1);
  const [row] = opts.forUpdate ? await query.for("update") : await query;
  if (!row) throw conversationNotFound(id);
  const teamIds = await actorTeamIds(db, actor);
  if (!teamIds.includes(row.teamId)) throw conversationNotFound(id);
  return row;
}

export async function toConversation(db: DbOrTx, row: ConversationRow): Promise<Conversation> {
  const drafts = row.drafts as ConversationDrafts;
  const closed = row.status === "materialized" || row.status === "archived";
  return {
    id: row.id,
    object: "conversation",
    teamId: row.teamId,
    userId: row.userId,
    title: row.title,
    status: row.status,
    drafts,
    issues: closed && row.evaluationId ? [] : await draftIssues(db, row.teamId, drafts),
    evaluationId: row.evaluationId,
    messageCount: row.messageCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toMessage(row: MessageRow): ConversationMessage {
  return {
    id: row.id,
    object: "conversation_message",
    conversationId: row.conversationId,
    role: row.role,
    parts: row.parts,
    attachedDesignUrls: row.attachedDesignUrls,
    status: row.status,
    generator: row.generator ?? null,
    error: row.error ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

export async function createConversation(
  ctx: CoreContext,
  actor: Actor,
  input: ConversationCreateInput,
): Promise<Conversation> {
  const { team } = await resolveTargetTeam(ctx.db, actor, input.teamId);
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .insert(conversations)
    .values({
      id: newId("conversation"),
      teamId: team.id,
      userId: actor.userId,
      title: input.title ?? null,
      status: "active",
      drafts: EMPTY_DRAFTS,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return toConversation(ctx.db, row!);
}

export async function getConversation(ctx: CoreContext, actor: Actor, id: string): Promise<Conversation> {
  return toConversation(ctx.db, await loadVisibleConversation(ctx.db, actor, id));
}

export async function listConversations(
  ctx: CoreContext,
  actor: Actor,
  query: PageQuery & { teamId?: string },
) {
  const teamIds = query.teamId
    ? [(await resolveTargetTeam(ctx.db, actor, query.teamId)).team.id]
    : await actorTeamIds(ctx.db, actor);
  const page = await paginate<ConversationRow>({
    db: ctx.db,
    table: conversations,
    resource: "conversation",
    where:
      teamIds.length === 1 ? eq(conversations.teamId, teamIds[0]!) : inArray(conversations.teamId, teamIds),
    query,
  });
  return { ...page, data: await Promise.all(page.data.map((r) => toConversation(ctx.db, r))) };
}

export async function listMessages(ctx: CoreContext, actor: Actor, id: string, query: PageQuery) {
  await loadVisibleConversation(ctx.db, actor, id);
  const page = await paginate<MessageRow>({
    db: ctx.db,
    table: conversationMessages,
    resource: "conversation_message",
    where: eq(conversationMessages.conversationId, id),
    query,
  });
  return { ...page, data: page.data.map(toMessage) };
}

/** Refuses changes to a conversation that was materialized or archived. */
export function assertOpen(row: ConversationRow): void {
  if (row.status === "materialized") {
    throw new ApiError(
      "conversation_closed",
      `Conversation ${row.id} was materialized into ${row.evaluationId ?? "an evaluation"}; edit the evaluation, or start a new conversation.`,
    );
  }
  if (row.status === "archived") {
    throw new ApiError(
      "conversation_closed",
      `Conversation ${row.id} is archived; reopen it with \`status: active\` first.`,
    );
  }
}

/** Stores new drafts and the status they put the conversation in. */
export async function saveDrafts(
  tx: DbOrTx,
  row: ConversationRow,
  drafts: ConversationDrafts,
  now: Date,
): Promise<ConversationRow> {
  const issues = await draftIssues(tx, row.teamId, drafts);
  const [updated] = await tx
    .update(conversations)
    .set({ drafts, status: statusForDrafts(drafts, issues), updatedAt: now })
    .where(eq(conversations.id, row.id))
    .returning();
  return updated!;
}

export async function updateConversation(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  input: ConversationUpdateInput,
): Promise<Conversation> {
  return ctx.db.transaction(async (tx) => {
    let row: ConversationRow | undefined = await loadVisibleConversation(tx, actor, id, { forUpdate: true });
    const now = ctx.clock.now();
    if (input.status === "archived") {
      if (input.drafts) assertOpen(row);
      [row] = await tx
        .update(conversations)
        .set({ status: "archived", title: input.title ?? row.title, updatedAt: now })
        .where(eq(conversations.id, id))
        .returning();
      return toConversation(tx, row!);
    }
    if (input.status === "active" && row.status === "archived") {
      // Reopened: a materialized conversation stays materialized, any other follows its drafts again.
      const drafts = row.drafts as ConversationDrafts;
      const status = row.evaluationId
        ? "materialized"
        : statusForDrafts(drafts, await draftIssues(tx, row.teamId, drafts));
      [row] = await tx
        .update(conversations)
        .set({ status, updatedAt: now })
        .where(eq(conversations.id, id))
        .returning();
    }
    if (input.drafts) {
      assertOpen(row!);
      row = await saveDrafts(tx, row!, input.drafts, now);
    }
    if (input.title !== undefined) {
      [row] = await tx
        .update(conversations)
        .set({ title: input.title, updatedAt: now })
        .where(eq(conversations.id, id))
        .returning();
    }
    return toConversation(tx, row!);
  });
}

/** Appends a message and counts it, refusing past the conversation's cap. */
export async function appendMessage(
  tx: DbOrTx,
  row: ConversationRow,
  message: Omit<typeof conversationMessages.$inferInsert, "conversationId">,
): Promise<MessageRow> {
  const [inserted] = await tx
    .insert(conversationMessages)
    .values({ ...message, conversationId: row.id })
    .returning();
  await tx
    .update(conversations)
    .set({ messageCount: sql`${conversations.messageCount} + 1`, updatedAt: message.createdAt ?? new Date() })
    .where(eq(conversations.id, row.id));
  return inserted!;
}
