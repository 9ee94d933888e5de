import type { PageQuery } from "@rubricon/contracts";
import { accessRequests, type Params, teams } from "@rubricon/db";
import { and, eq, sql } from "drizzle-orm";
import { actorTeamIds } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { listOrder, listStatement, paginate } from "../../kernel";
import { loadEvaluationAccess } from "../evaluations/access";
import { type RequestRow, type RequestStatus, serializeAccessRequests } from "./access-request-serialize";

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
  return { ...page, data: await serializeAccessRequests(ctx.db, page.data) };
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
  return { ...page, data: await serializeAccessRequests(ctx.db, page.data) };
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
  return { ...page, data: await serializeAccessRequests(ctx.db, page.data as RequestRow[]) };
}
