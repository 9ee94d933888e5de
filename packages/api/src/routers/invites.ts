import {
  DeletedObject,
  EvaluationInvite,
  EvaluationInviteList,
  IdParam,
  InviteAccepted,
  InviteCreateInput,
  PageQueryShape,
  withCursorRules,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import { AttemptThrottle } from "../limits/attempts";
import { apiProcedure, router } from "../trpc/init";
import { toList } from "./list";

const tags = ["Invites"];

export const invitesRouter = router({
  // GET /evaluations/{id}/invites — the evaluation's email invites (owners and editors)
  list: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/invites",
        tags,
        summary: "List an evaluation's invites",
        description:
          "The evaluation's e-mail invites with their status (pending, accepted, revoked, expired). Owners and editors of the evaluation.",
      },
      scope: "evaluations:read",
    })
    .input(withCursorRules(z.object({ id: IdParam, ...PageQueryShape })))
    .output(EvaluationInviteList)
    .query(async ({ ctx, input: { id, ...query } }) =>
      toList(ctx, await core.listEvaluationInvites(ctx.core, ctx.actor, id, query)),
    ),

  // POST /evaluations/{id}/invites — invite someone by email
  create: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations/{id}/invites",
        tags,
        summary: "Invite someone to an evaluation by email",
        description:
          "Emails a single-use link, valid for 14 days; whoever signs in with that address and accepts it gets a " +
          "share with the invite's permission. A new invite to the same address replaces the pending one.",
      },
      scope: "evaluations:write",
      successStatus: 201,
    })
    .input(InviteCreateInput.extend({ id: IdParam }))
    .output(EvaluationInvite)
    .mutation(({ ctx, input: { id, ...body } }) =>
      core.createEvaluationInvite(ctx.core, ctx.actor, id, body),
    ),

  // DELETE /evaluations/{id}/invites/{inviteId} — withdraw an invite; its link stops working
  delete: apiProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/evaluations/{id}/invites/{inviteId}",
        tags,
        summary: "Withdraw an invite",
        description:
          "Withdraws a pending invite; its link stops working. Owners and editors of the evaluation.",
      },
      scope: "evaluations:write",
    })
    .input(z.object({ id: IdParam, inviteId: IdParam }))
    .output(DeletedObject)
    .mutation(({ ctx, input }) => core.revokeEvaluationInvite(ctx.core, ctx.actor, input.id, input.inviteId)),

  // POST /invites/{token}/accept — the invited, signed-in user accepts
  accept: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/invites/{token}/accept",
        tags,
        summary: "Accept an invite",
        description:
          "Signed-in users only, with the address the invite was sent to. An evaluation invite becomes a share, a " +
          "team invite a membership. Wrong tokens are throttled per user and per address.",
      },
      sessionOnly: true,
      idempotent: false,
    })
    .input(z.object({ token: z.string().min(1).max(200) }).strict())
    .output(InviteAccepted)
    .mutation(async ({ ctx, input }) => {
      const attempts = new AttemptThrottle(ctx.services);
      await attempts.check("invite-token", ctx.actor.userId, ctx.clientIp, ctx.requestId);
      const accepted = await core.acceptInvite(ctx.core, ctx.actor, input.token);
      if (accepted) return accepted;
      await attempts.record("invite-token", ctx.actor.userId, ctx.clientIp, ctx.requestId);
      throw core.ApiError.notFound("invite_not_found", "No invite has this token.");
    }),
});
