import {
  type ConversationDrafts,
  EvaluationCreateInput,
  type MaterializedConversation,
} from "@rubricon/contracts";
import { conversations } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { createTemplate } from "../../catalog";
import { createEvaluation } from "../../evaluation";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError } from "../../kernel";
import { type ConversationRow, loadVisibleConversation, toConversation } from "./conversations";
import { draftIssues, evaluationCreateBody } from "./drafts";

function templateIdsOf(row: ConversationRow): string[] {
  return (row.drafts as ConversationDrafts).templates.flatMap((t) => (t.templateId ? [t.templateId] : []));
}

/**
 * `POST /conversations/{id}/evaluations`: the drafted templates and the Draft evaluation, made by the same create
 * functions as `POST /templates` and `POST /evaluations`, in one transaction. The conversation's row is locked
 * first, so concurrent calls queue: the first creates, the others answer what it created (`created: false`).
 */
export async function materializeConversation(
  ctx: CoreContext,
  actor: Actor,
  id: string,
): Promise<{ result: MaterializedConversation; created: boolean }> {
  return ctx.db.transaction(async (tx) => {
    const row = await loadVisibleConversation(tx, actor, id, { forUpdate: true });
    if (row.evaluationId) {
      return {
        created: false,
        result: {
          object: "materialized_conversation",
          conversation: await toConversation(tx, row),
          evaluationId: row.evaluationId,
          templateIds: [...templateIdsOf(row), ...row.createdTemplateIds],
          createdTemplateIds: row.createdTemplateIds,
        },
      };
    }
    if (row.status === "archived") {
      throw new ApiError(
        "conversation_closed",
        `Conversation ${id} is archived; reopen it with \`status: active\` first.`,
      );
    }
    const drafts = row.drafts as ConversationDrafts;
    const issues = await draftIssues(tx, row.teamId, drafts);
    if (issues.length > 0) {
      throw new ApiError(
        "conversation_not_ready",
        `The drafts are not complete: ${issues[0]!.param}: ${issues[0]!.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}`,
        { param: issues[0]!.param, details: { issues } },
      );
    }
    const txCtx: CoreContext = { ...ctx, db: tx };
    const templateIds: string[] = [];
    const createdTemplateIds: string[] = [];
    for (const draft of drafts.templates) {
      if (draft.templateId) {
        templateIds.push(draft.templateId);
        continue;
      }
      const template = await createTemplate(txCtx, actor, { ...draft.template!, teamId: row.teamId });
      templateIds.push(template.id);
      createdTemplateIds.push(template.id);
    }
    const body = EvaluationCreateInput.parse(evaluationCreateBody(drafts, row.teamId, templateIds));
    const evaluation = await createEvaluation(txCtx, actor, body);
    if (!("id" in evaluation)) throw new Error("a materialized evaluation is never a dry run");
    const [updated] = await tx
      .update(conversations)
      .set({
        status: "materialized",
        evaluationId: evaluation.id,
        createdTemplateIds,
        updatedAt: ctx.clock.now(),
      })
      .where(eq(conversations.id, id))
      .returning();
    return {
      created: true,
      result: {
        object: "materialized_conversation",
        conversation: await toConversation(tx, updated!),
        evaluationId: evaluation.id,
        templateIds,
        createdTemplateIds,
      },
    };
  });
}
