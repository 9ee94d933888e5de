import {
  DeletedObject,
  EvaluationInvite,
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
        description:
          "The people outside the team who were given access to the evaluation, with their permission. Owners and editors of the evaluation.",
      },
      scope: "evaluations:read",
    })
    .input(withCursorRules(z.object({ id: IdParam, ...PageQueryShape })))
    .output(EvaluationShareList)
    .query(async ({ ctx, input: { id, ...query } }) =>
      toList(ctx, await core.listShares(ctx.core, ctx.actor, id, query)),
    ),

  // POST /evaluations/{id}/shares — share with a user by id, or invite an address (owners and editors)
  create: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations/{id}/shares",
        tags,
        summary: "Share an evaluation",
        description:
          "Gives someone access. By `userId`: a share at once (201 `evaluation_share`). By `email`: an e-mailed " +
          "invitation (201 `evaluation_invite`, VIEWER or EDITOR) that gives access when the person accepts it, " +
          "answered alike whether or not the address has an account; inviting the same address again within a day " +
          "sends no second e-mail. Owners and editors share; only owners grant OWNER.",
      },
      scope: "evaluations:write",
      successStatus: 201,
    })
    // `.extend()` drops the schema's meta: carry its `oneOf` (exactly one of `userId` or `email`) to the document.
    .input(ShareCreateInput.extend({ id: IdParam }).meta(ShareCreateInput.meta() ?? {}))
    .output(EvaluationShare.or(EvaluationInvite))
    .mutation(({ ctx, input: { id, ...body } }) =>
      body.email !== undefined && body.userId === undefined
        ? core.shareByEmail(ctx.core, ctx.actor, id, { email: body.email, permission: body.permission })
        : core.createShare(ctx.core, ctx.actor, id, body),
    ),

  // PATCH /evaluations/{id}/shares/{shareId} — change a share's permission
  update: apiProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/evaluations/{id}/shares/{shareId}",
        tags,
        summary: "Update a share",
        description:
          "Changes a share's permission (viewer or editor). Owners and editors of the evaluation only.",
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
        description:
          "Ends a share: the person loses access at once. Owners and editors remove anyone's share; the person shared with may remove their own.",
      },
      scope: "evaluations:write",
    })
    .input(SharePath)
    .output(DeletedObject)
    .mutation(({ ctx, input }) => core.deleteShare(ctx.core, ctx.actor, input.id, input.shareId)),
});
