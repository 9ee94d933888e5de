import {
  DeletedObject,
  EvaluationShare,
  EvaluationShareList,
  IdParam,
  PageQueryShape,
  ShareCreateInput,
  ShareUpdateInput,
  withCursorRules,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import { apiProcedure, router } from "../trpc/init";
import { toList } from "./list";

const tags = ["Shares"];
const SharePath = z.object({ id: IdParam, shareId: IdParam });

export const sharesRouter = router({
  // GET /evaluations/{id}/shares — the people outside the team who have access
  list: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/shares",
        tags,
        summary: "List an evaluation's shares",
      },
      scope: "evaluations:read",
    })
    .input(withCursorRules(z.object({ id: IdParam, ...PageQueryShape })))
    .output(EvaluationShareList)
    .query(async ({ ctx, input: { id, ...query } }) =>
      toList(ctx, await core.listShares(ctx.core, ctx.actor, id, query)),
    ),

  // POST /evaluations/{id}/shares — share with an existing user (owners and editors)
  create: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations/{id}/shares",
        tags,
        summary: "Share an evaluation",
        description:
          "Gives an existing user outside the team access, named by `userId` or exact `email`. Owners and editors " +
          "share; only owners grant OWNER. People without an account are invited with POST /evaluations/{id}/invites.",
      },
      scope: "evaluations:write",
      successStatus: 201,
    })
    .input(ShareCreateInput.extend({ id: IdParam }))
    .output(EvaluationShare)
    .mutation(({ ctx, input: { id, ...body } }) => core.createShare(ctx.core, ctx.actor, id, body)),

  // PATCH /evaluations/{id}/shares/{shareId} — change a share's permission
  update: apiProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/evaluations/{id}/shares/{shareId}",
        tags,
        summary: "Update a share",
      },
      scope: "evaluations:write",
    })
    .input(ShareUpdateInput.extend({ id: IdParam, shareId: IdParam }))
    .output(EvaluationShare)
    .mutation(({ ctx, input: { id, shareId, ...body } }) =>
      core.updateShare(ctx.core, ctx.actor, id, shareId, body),
    ),

  // DELETE /evaluations/{id}/shares/{shareId} — remove a share (or give up your own)
  delete: apiProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/evaluations/{id}/shares/{shareId}",
        tags,
        summary: "Remove a share",
      },
      scope: "evaluations:write",
    })
    .input(SharePath)
    .output(DeletedObject)
    .mutation(({ ctx, input }) => core.deleteShare(ctx.core, ctx.actor, input.id, input.shareId)),
});
