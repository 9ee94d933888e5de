import type { AccessRequest, SharePermission } from "@rubricon/contracts";
import { accessRequests, type DbOrTx } from "@rubricon/db";
import { and, eq } from "drizzle-orm";
import { findPersonById, notify } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError } from "../../kernel";
import { allows, loadEvaluationAccess } from "../evaluations/access";
import { type RequestRow, type RequestStatus, serializeAccessRequests } from "./access-request-serialize";
import { grantShare } from "./sharing";

async function lockRequest(tx: DbOrTx, evaluationId: string, requestId: string): Promise<RequestRow> {
  const [row] = await tx
    .select()
    .from(accessRequests)
    .where(and(eq(accessRequests.id, requestId), eq(accessRequests.evaluationId, evaluationId)))
    .for("update")
    .limit(1);
  if (!row) throw ApiError.notFound("access_request_not_found", `No such access request: ${requestId}.`);
  return row;
}

function assertPending(row: RequestRow, action: string): void {
  if (row.status !== "pending") {
    throw new ApiError(
      "access_request_not_pending",
      `This request is ${row.status}; only a pending request can be ${action}.`,
    );
  }
}

async function settle(
  tx: DbOrTx,
  ctx: CoreContext,
  row: RequestRow,
  status: RequestStatus,
  by: string | null,
) {
  const now = ctx.clock.now();
  const [updated] = await tx
    .update(accessRequests)
    .set({ status, decidedBy: by, decidedAt: now, updatedAt: now })
    .where(eq(accessRequests.id, row.id))
    .returning();
  return updated!;
}

/** `POST .../access-requests/{requestId}/approve`: the requester gets a share, VIEWER unless told otherwise. */
export async function approveAccessRequest(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  requestId: string,
  input: { permission?: SharePermission },
): Promise<AccessRequest> {
  return ctx.db.transaction(async (tx) => {
    const { row: evaluation, access } = await loadEvaluationAccess(tx, actor, evaluationId, {
      forUpdate: true,
      need: "EDITOR",
    });
    const request = await lockRequest(tx, evaluationId, requestId);
    assertPending(request, "approved");
    const permission = input.permission ?? "VIEWER";
    if (permission === "OWNER" && !allows(access, "OWNER")) {
      throw ApiError.forbidden("insufficient_permission", "Only the evaluation's owners can grant OWNER.", {
        permission: access,
        required: "OWNER",
      });
    }
    const person = await findPersonById(tx, request.requesterId);
    if (person) {
      await grantShare(tx, ctx, evaluation, { person, permission, grantedBy: actor.userId, silent: true });
    }
    const updated = await settle(tx, ctx, request, "approved", actor.userId);
    await notify(
      tx,
      {
        userId: request.requesterId,
        kind: "access_request.approved",
        title: `Your request for access to "${evaluation.name}" was approved`,
        body: `You can now open it as ${permission.toLowerCase()}.`,
        data: { evaluationId, requestId },
        link: `${ctx.baseUrl}/evaluations/${evaluationId}`,
        email: true,
      },
      ctx.clock.now(),
    );
    return (await serializeAccessRequests(tx, [updated]))[0]!;
  });
}

/** `POST .../access-requests/{requestId}/decline`. */
export async function declineAccessRequest(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  requestId: string,
): Promise<AccessRequest> {
  return ctx.db.transaction(async (tx) => {
    const { row: evaluation } = await loadEvaluationAccess(tx, actor, evaluationId, {
      forUpdate: true,
      need: "EDITOR",
    });
    const request = await lockRequest(tx, evaluationId, requestId);
    assertPending(request, "declined");
    const updated = await settle(tx, ctx, request, "declined", actor.userId);
    await notify(
      tx,
      {
        userId: request.requesterId,
        kind: "access_request.declined",
        title: `Your request for access to "${evaluation.name}" was declined`,
        data: { evaluationId, requestId },
        email: true,
      },
      ctx.clock.now(),
    );
    return (await serializeAccessRequests(tx, [updated]))[0]!;
  });
}

/** `POST .../access-requests/{requestId}/withdraw`: only the requester, only while pending. */
export async function withdrawAccessRequest(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  requestId: string,
): Promise<AccessRequest> {
  return ctx.db.transaction(async (tx) => {
    const request = await lockRequest(tx, evaluationId, requestId);
    if (request.requesterId !== actor.userId) {
      throw ApiError.notFound("access_request_not_found", `No such access request: ${requestId}.`);
    }
    assertPending(request, "withdrawn");
    const updated = await settle(tx, ctx, request, "withdrawn", actor.userId);
    return (await serializeAccessRequests(tx, [updated]))[0]!;
  });
}
