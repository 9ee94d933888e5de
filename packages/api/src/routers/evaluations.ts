import {
  Comparison,
  ComparisonCreateInput,
  ComparisonList,
  ComparisonUpdateInput,
  DeletedObject,
  Evaluation,
  EvaluationCreateInput,
  EvaluationCreateResult,
  EvaluationDraftEdit,
  EvaluationDraftInput,
  EvaluationList,
  EvaluationListQuery,
  EvaluationTransfer,
  EvaluationTransferInput,
  EvaluationUpdateInput,
  IdParam,
  PageQueryShape,
  withCursorRules,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import { apiProcedure, router } from "../trpc/init";
import { toList } from "./list";

const tags = ["Evaluations"];
const ById = z.object({ id: IdParam });
const ComparisonPath = z.object({ id: IdParam, comparisonId: IdParam });

export const evaluationsRouter = router({
  // GET /evaluations — list the evaluations of the caller's teams, newest first
  list: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations",
        tags,
        summary: "List evaluations",
        description:
          "The evaluations of the caller's teams, newest first; filter by `status`, and by `teamId` for a signed-in user in several teams.",
      },
      scope: "evaluations:read",
      trustedOutput: true,
    })
    .input(EvaluationListQuery)
    .output(EvaluationList)
    .query(async ({ ctx, input }) => toList(ctx, await core.listEvaluations(ctx.core, ctx.actor, input))),

  // POST /evaluations — create an evaluation (or price it with dryRun)
  create: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations",
        tags,
        summary: "Create an evaluation",
        description:
          "Answers 201 with the evaluation, or 200 with a price and nothing persisted when `dryRun` is true.",
      },
      scope: "evaluations:write",
      successStatus: 201,
      trustedOutput: true,
    })
    .input(EvaluationCreateInput)
    .output(EvaluationCreateResult)
    .mutation(async ({ ctx, input }) => {
      const result = await core.createEvaluation(ctx.core, ctx.actor, input);
      if ("dryRun" in result) ctx.response.status = 200;
      return result;
    }),

  // GET /evaluations/{id} — one evaluation
  get: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}",
        tags,
        summary: "Retrieve an evaluation",
        description:
          "One evaluation with its settings, status, counts and links; 404 when it does not exist or the caller may not see it.",
      },
      scope: "evaluations:read",
      trustedOutput: true,
    })
    .input(ById)
    .output(Evaluation)
    .query(({ ctx, input }) => core.getEvaluation(ctx.core, ctx.actor, input.id)),

  // POST /evaluations/{id}/share-token/rotate — a new share link; the old one stops working
  rotateShareToken: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations/{id}/share-token/rotate",
        tags,
        summary: "Rotate the share token",
        description:
          "Issues a new share token, so `links.share` changes and the old link answers 404 at once. Public raters " +
          "who started on the old link start again on the new one.",
      },
      scope: "evaluations:write",
      idempotent: false,
    })
    .input(ById)
    .output(Evaluation)
    .mutation(async ({ ctx, input }) => {
      await core.rotateShareToken(ctx.core, ctx.actor, input.id);
      return core.getEvaluation(ctx.core, ctx.actor, input.id);
    }),

  // PATCH /evaluations/{id} — edit fields or move status
  update: apiProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/evaluations/{id}",
        tags,
        summary: "Update an evaluation",
        description:
          "Edits an evaluation's fields or moves its status (Draft, Running, Paused, Completed). A move the status rules do not allow is 400 naming `status`.",
      },
      scope: "evaluations:write",
    })
    .input(EvaluationUpdateInput.extend({ id: IdParam }))
    .output(Evaluation)
    .mutation(({ ctx, input: { id, ...patch } }) => core.updateEvaluation(ctx.core, ctx.actor, id, patch)),

  // PATCH /evaluations/{id}/draft — a Draft's fields and comparisons in one atomic edit
  editDraft: apiProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/evaluations/{id}/draft",
        tags,
        summary: "Edit a draft evaluation",
        description:
          "Changes a Draft evaluation's fields and replaces its comparisons in one transaction: `comparisons` is " +
          "the full list in rater order (an item with an `id` keeps that comparison, one without adds one, one left " +
          "out is removed). Either everything is saved or nothing is. Any status other than Draft is 409 " +
          "`evaluation_not_draft`; an unknown or repeated comparison id is 400 naming `comparisons[i].id`.",
      },
      scope: "evaluations:write",
    })
    .input(EvaluationDraftInput.extend({ id: IdParam }))
    .output(EvaluationDraftEdit)
    .mutation(({ ctx, input: { id, ...edit } }) => core.editDraftEvaluation(ctx.core, ctx.actor, id, edit)),

  // POST /evaluations/{id}/transfer — move an evaluation with everything in it to another team
  transfer: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations/{id}/transfer",
        tags,
        summary: "Move an evaluation to another team",
        description:
          "Moves the evaluation with its comparisons, ratings, files, runs, shares, invites and access requests to " +
          "`teamId`, in one transaction. You must be an owner or admin of both teams (else 403 " +
          "`insufficient_role`; a team you do not belong to is 404 `team_not_found`, both naming `teamId`). It " +
          "counts as one evaluation of the target team's monthly quota (429 `quota_exceeded`). Refused with 409 " +
          "`evaluation_runs_active` while autouser runs are queued or running, and 409 `evaluation_same_team` " +
          "when it is already in that team. Share links keep working. The old team receives " +
          "`evaluation.transferred_out`, the new one `evaluation.transferred_in`. Team autousers of the old team " +
          "are no longer selected (`droppedAutouserIds`). Signed-in users only: keys and tokens act on one team.",
      },
      sessionOnly: true,
    })
    .input(EvaluationTransferInput.extend({ id: IdParam }))
    .output(EvaluationTransfer)
    .mutation(({ ctx, input }) => core.transferEvaluation(ctx.core, ctx.actor, input.id, input.teamId)),

  // DELETE /evaluations/{id} — delete an evaluation and everything in it
  delete: apiProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/evaluations/{id}",
        tags,
        summary: "Delete an evaluation",
        description:
          "Deletes the evaluation with its comparisons, ratings, runs and shares. It cannot be undone.",
      },
      scope: "evaluations:write",
    })
    .input(ById)
    .output(DeletedObject)
    .mutation(({ ctx, input }) => core.deleteEvaluation(ctx.core, ctx.actor, input.id)),

  comparisons: router({
    // GET /evaluations/{id}/comparisons — the comparisons raters score
    list: apiProcedure
      .meta({
        openapi: {
          method: "GET",
          path: "/evaluations/{id}/comparisons",
          tags,
          summary: "List comparisons",
          description: "The comparisons raters score, in the order they were added.",
        },
        scope: "evaluations:read",
      })
      .input(withCursorRules(z.object({ ...PageQueryShape, id: IdParam })))
      .output(ComparisonList)
      .query(async ({ ctx, input: { id, ...page } }) =>
        toList(ctx, await core.listComparisons(ctx.core, ctx.actor, id, page)),
      ),

    // POST /evaluations/{id}/comparisons — add a comparison to a Draft
    create: apiProcedure
      .meta({
        openapi: {
          method: "POST",
          path: "/evaluations/{id}/comparisons",
          tags,
          summary: "Add a comparison",
          description:
            "Adds a comparison (a URL or an uploaded file, or two for side by side) to a Draft evaluation; other statuses answer 400 `evaluation_not_editable`.",
        },
        scope: "evaluations:write",
        successStatus: 201,
      })
      .input(ComparisonCreateInput.extend({ id: IdParam }))
      .output(Comparison)
      .mutation(({ ctx, input: { id, ...fields } }) =>
        core.createComparison(ctx.core, ctx.actor, id, fields),
      ),

    // GET /evaluations/{id}/comparisons/{comparisonId} — one comparison
    get: apiProcedure
      .meta({
        openapi: {
          method: "GET",
          path: "/evaluations/{id}/comparisons/{comparisonId}",
          tags,
          summary: "Retrieve a comparison",
          description: "One comparison of the evaluation with its options.",
        },
        scope: "evaluations:read",
      })
      .input(ComparisonPath)
      .output(Comparison)
      .query(({ ctx, input }) => core.getComparison(ctx.core, ctx.actor, input.id, input.comparisonId)),

    // PATCH /evaluations/{id}/comparisons/{comparisonId} — change a comparison of a Draft
    update: apiProcedure
      .meta({
        openapi: {
          method: "PATCH",
          path: "/evaluations/{id}/comparisons/{comparisonId}",
          tags,
          summary: "Update a comparison",
          description:
            "Changes a comparison of a Draft evaluation; other statuses answer 400 `evaluation_not_editable`.",
        },
        scope: "evaluations:write",
      })
      .input(ComparisonUpdateInput.extend({ id: IdParam, comparisonId: IdParam }))
      .output(Comparison)
      .mutation(({ ctx, input: { id, comparisonId, ...fields } }) =>
        core.updateComparison(ctx.core, ctx.actor, id, comparisonId, fields),
      ),

    // DELETE /evaluations/{id}/comparisons/{comparisonId} — remove a comparison from a Draft
    delete: apiProcedure
      .meta({
        openapi: {
          method: "DELETE",
          path: "/evaluations/{id}/comparisons/{comparisonId}",
          tags,
          summary: "Delete a comparison",
          description:
            "Removes a comparison from a Draft evaluation; other statuses answer 400 `evaluation_not_editable`.",
        },
        scope: "evaluations:write",
      })
      .input(ComparisonPath)
      .output(DeletedObject)
      .mutation(({ ctx, input }) => core.deleteComparison(ctx.core, ctx.actor, input.id, input.comparisonId)),
  }),
});
