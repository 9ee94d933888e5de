import {
  AccessRequest,
  AccessRequestApproveInput,
  AccessRequestCreateInput,
  AccessRequestList,
  AccessRequestStatus,
  IdParam,
  PageQueryShape,
  withCursorRules,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import { apiProcedure, router } from "../trpc/init";
import { toList } from "./list";

const tags = ["Access Requests"];
const RequestPath = z.object({ id: IdParam, requestId: IdParam }).strict();
const StatusFilter = AccessRequestStatus.optional();

export const accessRequestsRouter = router({
  // POST /evaluations/{id}/access-requests — ask for access to a link-shared evaluation
  create: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations/{id}/access-requests",
        tags,
        summary: "Request access to an evaluation",
        description:
          "For signed-in users outside the team, on evaluations shared with ANYONE_WITH_LINK (those that answer " +
          "403 evaluation_no_access). One pending request per person and evaluation. Asking again within 10 " +
          "minutes of withdrawing is 429 `rate_limit_exceeded` with `Retry-After`; the inbox's owners are told " +
          "(notification and e-mail) of one request per person and evaluation a day, later ones wait in the inbox.",
      },
      sessionOnly: true,
      successStatus: 201,
    })
    .input(AccessRequestCreateInput.extend({ id: IdParam }))
    .output(AccessRequest)
    .mutation(({ ctx, input: { id, ...body } }) => core.createAccessRequest(ctx.core, ctx.actor, id, body)),

  // GET /evaluations/{id}/access-requests — the evaluation's requests (owners and editors)
  list: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/access-requests",
        tags,
        summary: "List an evaluation's access requests",
        description:
          "Requests for access to the evaluation from people outside the team, newest first. Owners and editors of the evaluation.",
      },
      scope: "evaluations:read",
    })
    .input(withCursorRules(z.object({ id: IdParam, status: StatusFilter, ...PageQueryShape })))
    .output(AccessRequestList)
    .query(async ({ ctx, input: { id, ...query } }) =>
      toList(ctx, await core.listEvaluationAccessRequests(ctx.core, ctx.actor, id, query)),
    ),

  // GET /evaluations/{id}/access-requests/mine — the caller's own requests for the evaluation
  mine: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/access-requests/mine",
        tags,
        summary: "List your access requests for an evaluation",
        description:
          "The caller's own access requests for the evaluation, newest first, so the dashboard can show whether one is pending.",
      },
      sessionOnly: true,
    })
    .input(withCursorRules(z.object({ id: IdParam, ...PageQueryShape })))
    .output(AccessRequestList)
    .query(async ({ ctx, input: { id, ...query } }) =>
      toList(ctx, await core.listMyAccessRequests(ctx.core, ctx.actor, id, query)),
    ),

  // GET /access-requests/inbox — requests to the evaluations of the caller's teams
  inbox: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/access-requests/inbox",
        tags,
        summary: "Access-request inbox",
        description:
          "Requests to the evaluations of your teams, newest first; pending unless `status` says otherwise.",
      },
      scope: "evaluations:read",
    })
    .input(withCursorRules(z.object({ status: StatusFilter, ...PageQueryShape })))
    .output(AccessRequestList)
    .query(async ({ ctx, input }) => toList(ctx, await core.accessRequestInbox(ctx.core, ctx.actor, input))),

  // POST /evaluations/{id}/access-requests/{requestId}/approve — grant a share (VIEWER unless told)
  approve: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations/{id}/access-requests/{requestId}/approve",
        tags,
        summary: "Approve an access request",
        description:
          "Grants the requester a share (viewer unless a permission is given) and closes the request; the requester is notified. Owners and editors of the evaluation; a request already answered or withdrawn is 400 `access_request_not_pending`.",
      },
      scope: "evaluations:write",
      idempotent: false,
    })
    .input(AccessRequestApproveInput.extend({ id: IdParam, requestId: IdParam }))
    .output(AccessRequest)
    .mutation(({ ctx, input: { id, requestId, ...body } }) =>
      core.approveAccessRequest(ctx.core, ctx.actor, id, requestId, body),
    ),

  // POST /evaluations/{id}/access-requests/{requestId}/decline
  decline: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations/{id}/access-requests/{requestId}/decline",
        tags,
        summary: "Decline an access request",
        description:
          "Closes the request without giving access; the requester is notified. Owners and editors of the evaluation; a request already answered or withdrawn is 400 `access_request_not_pending`.",
      },
      scope: "evaluations:write",
      idempotent: false,
    })
    .input(RequestPath)
    .output(AccessRequest)
    .mutation(({ ctx, input }) => core.declineAccessRequest(ctx.core, ctx.actor, input.id, input.requestId)),

  // POST /evaluations/{id}/access-requests/{requestId}/withdraw — by the requester
  withdraw: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations/{id}/access-requests/{requestId}/withdraw",
        tags,
        summary: "Withdraw your access request",
        description:
          "Withdraws the caller's own request. Only the requester may, and only while it is pending (else 400 `access_request_not_pending`).",
      },
      sessionOnly: true,
      idempotent: false,
    })
    .input(RequestPath)
    .output(AccessRequest)
    .mutation(({ ctx, input }) => core.withdrawAccessRequest(ctx.core, ctx.actor, input.id, input.requestId)),
});
