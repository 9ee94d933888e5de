import type { AccessRequest } from "@rubricon/contracts";
import {
  accessRequests,
  type DbOrTx,
  evaluationShares,
  evaluations,
  newId,
  notifications,
} from "@rubricon/db";
import { and, desc, eq, gt, inArray, sql } from "drizzle-orm";
import { findPersonById, isTeamMember, notify, teamMemberIds } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError } from "../../kernel";
import { evaluationNotFound } from "../evaluations/access";
import type { EvaluationRow } from "../evaluations/serialize";
import { serializeAccessRequests } from "./access-request-serialize";

export {
  approveAccessRequest,
  declineAccessRequest,
  withdrawAccessRequest,
} from "./access-request-decisions";
export {
  accessRequestInbox,
  listEvaluationAccessRequests,
  listMyAccessRequests,
} from "./access-request-lists";

/** The people whose inbox an evaluation's requests reach: its team's owners and admins, its creator, its owners. */
async function inboxOwners(tx: DbOrTx, evaluation: EvaluationRow): Promise<string[]> {
  const ids = new Set(await teamMemberIds(tx, evaluation.teamId, ["owner", "admin"]));
  if (evaluation.createdBy && (await isTeamMember(tx, evaluation.teamId, evaluation.createdBy))) {
    ids.add(evaluation.createdBy);
  }
  const owners = await tx
    .select({ userId: evaluationShares.userId })
    .from(evaluationShares)
    .where(and(eq(evaluationShares.evaluationId, evaluation.id), eq(evaluationShares.permission, "OWNER")));
  for (const o of owners) ids.add(o.userId);
  return [...ids];
}

/** After withdrawing a request, how long its requester waits before asking again for the same evaluation. */
export const ACCESS_REQUEST_COOLDOWN_MS = 10 * 60 * 1000;
/** The inbox is told (bell and e-mail) of one request per person and evaluation in this period; later ones wait in it. */
export const ACCESS_REQUEST_NOTIFY_PERIOD_MS = 24 * 60 * 60 * 1000;

/** Refuses a request made too soon after the same person withdrew one for the same evaluation. */
async function assertCooledDown(
  tx: DbOrTx,
  requesterId: string,
  evaluationId: string,
  now: Date,
): Promise<void> {
  const [withdrawn] = await tx
    .select({ at: accessRequests.decidedAt })
    .from(accessRequests)
    .where(
      and(
        eq(accessRequests.requesterId, requesterId),
        eq(accessRequests.evaluationId, evaluationId),
        eq(accessRequests.status, "withdrawn"),
        gt(accessRequests.decidedAt, new Date(now.getTime() - ACCESS_REQUEST_COOLDOWN_MS)),
      ),
    )
    .orderBy(desc(accessRequests.decidedAt))
    .limit(1);
  if (!withdrawn?.at) return;
  const wait = Math.max(
    1,
    Math.ceil((withdrawn.at.getTime() + ACCESS_REQUEST_COOLDOWN_MS - now.getTime()) / 1000),
  );
  throw new ApiError(
    "rate_limit_exceeded",
    `You withdrew a request for this evaluation ${Math.round((now.getTime() - withdrawn.at.getTime()) / 1000)} s ago; ask again in ${wait} s.`,
    { headers: { "Retry-After": String(wait) }, details: { retryAfter: wait } },
  );
}

/** Whether the inbox was already told of one of this person's requests for the evaluation within the period. */
async function toldRecently(
  tx: DbOrTx,
  owners: string[],
  requesterId: string,
  evaluationId: string,
  now: Date,
): Promise<boolean> {
  if (owners.length === 0) return false;
  const since = new Date(now.getTime() - ACCESS_REQUEST_NOTIFY_PERIOD_MS);
  const recent = tx
    .select({ id: accessRequests.id })
    .from(accessRequests)
    .where(
      and(
        eq(accessRequests.requesterId, requesterId),
        eq(accessRequests.evaluationId, evaluationId),
        gt(accessRequests.createdAt, since),
      ),
    );
  const [told] = await tx
    .select({ id: notifications.id })
    .from(notifications)
    .where(
      and(
        inArray(notifications.userId, owners),
        eq(notifications.kind, "access_request.created"),
        gt(notifications.createdAt, since),
        inArray(sql`${notifications.data}->>'requestId'`, recent),
      ),
    )
    .limit(1);
  return told !== undefined;
}

/**
 * `POST /evaluations/{id}/access-requests`: a signed-in user outside the team asks for access to an evaluation
 * whose link lets anyone ask (`ANYONE_WITH_LINK`, once it is out of Draft: the evaluations that answer 403
 * evaluation_no_access). Any other evaluation is the usual 404.
 */
export async function createAccessRequest(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  input: { message?: string },
): Promise<AccessRequest> {
  return ctx.db.transaction(async (tx) => {
    const [evaluation] = await tx.select().from(evaluations).where(eq(evaluations.id, evaluationId)).limit(1);
    if (!evaluation) throw evaluationNotFound(evaluationId);
    const member = await isTeamMember(tx, evaluation.teamId, actor.userId);
    const [share] = await tx
      .select({ id: evaluationShares.id })
      .from(evaluationShares)
      .where(and(eq(evaluationShares.evaluationId, evaluationId), eq(evaluationShares.userId, actor.userId)))
      .limit(1);
    if (member || share) {
      throw new ApiError("already_has_access", "You already have access to this evaluation.");
    }
    if (evaluation.shareAccess !== "ANYONE_WITH_LINK" || evaluation.status === "Draft") {
      throw evaluationNotFound(evaluationId);
    }
    const now = ctx.clock.now();
    await assertCooledDown(tx, actor.userId, evaluationId, now);
    const [row] = await tx
      .insert(accessRequests)
      .values({
        id: newId("accessRequest"),
        evaluationId,
        teamId: evaluation.teamId,
        requesterId: actor.userId,
        message: input.message ?? null,
        status: "pending",
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) {
      throw new ApiError(
        "access_request_already_pending",
        "You already have a pending request for this evaluation; withdraw it or wait for an answer.",
      );
    }
    const requester = await findPersonById(tx, actor.userId);
    const owners = await inboxOwners(tx, evaluation);
    // Asking again (after a withdraw or a decline) lands in the inbox, but tells its owners once a period at most.
    const told = await toldRecently(tx, owners, actor.userId, evaluationId, now);
    for (const userId of told ? [] : owners) {
      await notify(
        tx,
        {
          userId,
          kind: "access_request.created",
          title: `${requester?.name ?? requester?.email} asks for access to "${evaluation.name}"`,
          body: input.message ?? null,
          data: { evaluationId, requestId: row.id },
          link: `${ctx.baseUrl}/access-requests`,
          email: true,
        },
        now,
      );
    }
    return (await serializeAccessRequests(tx, [row]))[0]!;
  });
}
