import type { AccessRequest, PageQuery, SharePermission } from "@rubricon/contracts";
import {
  accessRequests,
  type DbOrTx,
  evaluationShares,
  evaluations,
  newId,
  notifications,
  type Params,
  teams,
} from "@rubricon/db";
import { and, desc, eq, gt, inArray, sql } from "drizzle-orm";
import {
  actorTeamIds,
  findPersonById,
  isTeamMember,
  notify,
  peopleById,
  teamMemberIds,
} from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, listOrder, listStatement, paginate } from "../../kernel";
import { allows, evaluationNotFound, loadEvaluationAccess } from "../evaluations/access";
import type { EvaluationRow } from "../evaluations/serialize";
import { grantShare } from "./sharing";

type RequestRow = typeof accessRequests.$inferSelect;
type RequestStatus = RequestRow["status"];

async function serialize(db: DbOrTx, rows: RequestRow[]): Promise<AccessRequest[]> {
  if (rows.length === 0) return [];
  const people = await peopleById(
    db,
    rows.map((r) => r.requesterId),
  );
  const names = await db
    .select({ id: evaluations.id, name: evaluations.name })
    .from(evaluations)
    .where(inArray(evaluations.id, [...new Set(rows.map((r) => r.evaluationId))]));
  const nameOf = new Map(names.map((n) => [n.id, n.name]));
  return rows.map((r) => {
    const p = people.get(r.requesterId);
    return {
      id: r.id,
      object: "access_request" as const,
      evaluationId: r.evaluationId,
      evaluationName: nameOf.get(r.evaluationId) ?? "",
      requesterId: r.requesterId,
      requester: { id: r.requesterId, name: p?.name ?? null, email: p?.email ?? "" },
      status: r.status,
      message: r.message,
      decidedAt: r.decidedAt?.toISOString() ?? null,
      createdAt: r.createdAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
    };
  });
}

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
    return (await serialize(tx, [row]))[0]!;
  });
}

/** `GET /evaluations/{id}/access-requests`: the evaluation's requests, for its owners and editors. */
export async function listEvaluationAccessRequests(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  query: PageQuery & { status?: RequestStatus },
) {
  await loadEvaluationAccess(ctx.db, actor, evaluationId, { need: "EDITOR" });
  const page = await paginate<RequestRow>({
    db: ctx.db,
    table: accessRequests,
    resource: "access_request",
    where: and(
      eq(accessRequests.evaluationId, evaluationId),
      query.status ? eq(accessRequests.status, query.status) : undefined,
    ),
    query,
  });
  return { ...page, data: await serialize(ctx.db, page.data) };
}

/** `GET /evaluations/{id}/access-requests/mine`: the caller's own requests for the evaluation. */
export async function listMyAccessRequests(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  query: PageQuery,
) {
  const page = await paginate<RequestRow>({
    db: ctx.db,
    table: accessRequests,
    resource: "access_request",
    where: and(eq(accessRequests.requesterId, actor.userId), eq(accessRequests.evaluationId, evaluationId)),
    query,
  });
  return { ...page, data: await serialize(ctx.db, page.data) };
}

interface InboxValues {
  teamIds: string[];
  status: RequestStatus;
}

/** Each team's requests in one status, read from its index in list order, and the teams' pages merged. */
const inboxOfTeams = listStatement({
  name: "access_request_inbox",
  table: accessRequests,
  resource: "access_request",
  where: ($: Params<InboxValues>) =>
    and(sql`${accessRequests.teamId} = any(${$.teamIds})`, eq(accessRequests.status, $.status)),
  page: (db, $, { keyset, backwards, limit }) => {
    const teamPage = db
      .select()
      .from(accessRequests)
      .where(and(eq(accessRequests.teamId, teams.id), eq(accessRequests.status, $.status), keyset))
      .orderBy(...listOrder(accessRequests, backwards))
      .limit(limit)
      .as("team_page");
    return db
      .select(teamPage._.selectedFields)
      .from(teams)
      .crossJoinLateral(teamPage)
      .where(sql`${teams.id} = any(${$.teamIds})`)
      .orderBy(...listOrder(teamPage, backwards))
      .limit(limit);
  },
});

/** `GET /access-requests/inbox`: requests to the evaluations of the caller's teams, pending unless asked. */
export async function accessRequestInbox(
  ctx: CoreContext,
  actor: Actor,
  query: PageQuery & { status?: RequestStatus },
) {
  const teamIds = await actorTeamIds(ctx.db, actor);
  if (teamIds.length === 0) return { data: [], hasMore: false, usedLegacyCursor: query.cursor !== undefined };
  const page = await inboxOfTeams(ctx.db, { teamIds, status: query.status ?? "pending" }, query);
  return { ...page, data: await serialize(ctx.db, page.data as RequestRow[]) };
}

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
    return (await serialize(tx, [updated]))[0]!;
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
    return (await serialize(tx, [updated]))[0]!;
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
    return (await serialize(tx, [updated]))[0]!;
  });
}
