import type { PageQuery } from "@rubricon/contracts";
import { comparisons, type Db, evaluationShares, evaluations, type Params, teams } from "@rubricon/db";
import { and, eq, inArray, type SQLWrapper, sql } from "drizzle-orm";
import { actorTeamIds, resolveTargetTeam } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { listOrder, listStatement, type PageParts } from "../../kernel";
import { templateRefsFor, templateRefsOf } from "./access";
import { type EvaluationRow, toEvaluation } from "./serialize";

/**
 * A page of evaluations of one or more teams, with their comparison counts and template names. Each team's
 * rows are read from its index in list order and the teams' pages merged: a filter `team_id = any(...)` over the
 * table could not use the index's order and would sort every evaluation of the teams. The page is read first and
 * the counts grouped over its ids: a count per row as a correlated subquery cost Postgres about twice the whole
 * page read.
 *
 * One team (a key, a token, or a user naming a team) is bound as a scalar, several as an array. With the scalar
 * Postgres keeps one generic plan for the statement; with an array the generic plan is costed for ten teams, so
 * every execution was planned afresh (about 0.3 ms of Postgres CPU per page).
 *
 * With `shared`, the evaluations shared with that user (outside those teams) are a further branch of the merge:
 * each of the user's shares, read from its index, finds its evaluation by primary key with the page's keyset, so
 * the branch costs one index probe per share, whatever the size of the owning teams.
 */
function evaluationsPage(
  db: Db,
  ofTeams: { teamId: SQLWrapper } | { teamIds: SQLWrapper },
  status: SQLWrapper | undefined,
  { keyset, backwards, limit }: PageParts,
  shared?: { userId: SQLWrapper; teamIds: SQLWrapper },
) {
  const teamPage = db
    .select()
    .from(evaluations)
    .where(and(eq(evaluations.teamId, teams.id), status ? eq(evaluations.status, status) : undefined, keyset))
    .orderBy(...listOrder(evaluations, backwards))
    .limit(limit)
    .as("team_page");
  const teamBranch = db
    .select({
      ...teamPage._.selectedFields,
      sharedPermission: sql<string | null>`null::text`.as("shared_permission"),
    })
    .from(teams)
    .crossJoinLateral(teamPage)
    .where("teamId" in ofTeams ? eq(teams.id, ofTeams.teamId) : sql`${teams.id} = any(${ofTeams.teamIds})`);
  const merged = shared
    ? (() => {
        const sharedRow = db
          .select()
          .from(evaluations)
          .where(
            and(
              eq(evaluations.id, evaluationShares.evaluationId),
              sql`${evaluations.teamId} <> all(${shared.teamIds})`,
              status ? eq(evaluations.status, status) : undefined,
              keyset,
            ),
          )
          .as("shared_row");
        const sharedBranch = db
          .select({
            ...sharedRow._.selectedFields,
            sharedPermission: sql<string | null>`${evaluationShares.permission}`.as("shared_permission"),
          })
          .from(evaluationShares)
          .crossJoinLateral(sharedRow)
          .where(eq(evaluationShares.userId, shared.userId));
        return teamBranch.unionAll(sharedBranch);
      })()
    : teamBranch;
  const page = db.$with("page").as(
    db
      .select()
      .from(merged.as("merged"))
      .orderBy(...(backwards ? [sql`updated_at asc`, sql`id asc`] : [sql`updated_at desc`, sql`id desc`]))
      .limit(limit),
  );
  const counts = db.$with("counts").as(
    db
      .select({ evaluationId: comparisons.evaluationId, n: sql<number>`count(*)::int`.as("n") })
      .from(comparisons)
      .where(inArray(comparisons.evaluationId, db.select({ id: page.id }).from(page)))
      .groupBy(comparisons.evaluationId),
  );
  return db
    .with(page, counts)
    .select({
      ...page._.selectedFields,
      comparisonCount: sql<number>`coalesce(${counts.n}, 0)`,
      templateRefs: templateRefsFor(page.selectedDimensionIds),
    })
    .from(page)
    .leftJoin(counts, eq(counts.evaluationId, page.id))
    .orderBy(...listOrder(page, backwards));
}

interface TeamListValues {
  teamId: string;
  status?: EvaluationRow["status"];
}

interface UserListValues {
  teamIds: string[];
  userId: string;
  status?: EvaluationRow["status"];
}

const evaluationsOfTeam = listStatement({
  name: "evaluations_of_team",
  table: evaluations,
  resource: "evaluation",
  where: ($: Params<TeamListValues>) => eq(evaluations.teamId, $.teamId),
  page: (db, $, page) => evaluationsPage(db, { teamId: $.teamId }, undefined, page),
});

const evaluationsOfTeamInStatus = listStatement({
  name: "evaluations_of_team_in_status",
  table: evaluations,
  resource: "evaluation",
  where: ($: Params<TeamListValues>) =>
    and(eq(evaluations.teamId, $.teamId), eq(evaluations.status, $.status)),
  page: (db, $, page) => evaluationsPage(db, { teamId: $.teamId }, $.status, page),
});

function teamOrShared($: Params<UserListValues>) {
  return sql`(${evaluations.teamId} = any(${$.teamIds}) or exists (select 1 from evaluation_shares s
    where s.evaluation_id = ${evaluations.id} and s.user_id = ${$.userId}))`;
}

const evaluationsOfUser = listStatement({
  name: "evaluations_of_user",
  table: evaluations,
  resource: "evaluation",
  where: teamOrShared,
  page: (db, $, page) => evaluationsPage(db, { teamIds: $.teamIds }, undefined, page, $),
});

const evaluationsOfUserInStatus = listStatement({
  name: "evaluations_of_user_in_status",
  table: evaluations,
  resource: "evaluation",
  where: ($: Params<UserListValues>) => and(teamOrShared($), eq(evaluations.status, $.status)),
  page: (db, $, page) => evaluationsPage(db, { teamIds: $.teamIds }, $.status, page, $),
});

/**
 * Evaluations of the caller's teams, newest first. A user (session or plugin) without a `teamId` filter also sees
 * the evaluations shared with them, marked `sharedWithYou`; a key or OAuth token sees only its team's.
 */
export async function listEvaluations(
  ctx: CoreContext,
  actor: Actor,
  query: PageQuery & { teamId?: string; status?: EvaluationRow["status"] },
) {
  // A key or token is bound to its team; a user naming a team reads that team (if a member).
  const teamId =
    query.teamId !== undefined
      ? (await resolveTargetTeam(ctx.db, actor, query.teamId)).team.id
      : actor.boundTeamId;
  const page = teamId
    ? query.status
      ? await evaluationsOfTeamInStatus(ctx.db, { teamId, status: query.status }, query)
      : await evaluationsOfTeam(ctx.db, { teamId }, query)
    : await (async () => {
        const values = { teamIds: await actorTeamIds(ctx.db, actor), userId: actor.userId };
        return query.status
          ? await evaluationsOfUserInStatus(ctx.db, { ...values, status: query.status }, query)
          : await evaluationsOfUser(ctx.db, values, query);
      })();
  const refs = templateRefsOf(page.data);
  return {
    ...page,
    data: page.data.map((r) =>
      toEvaluation(
        r,
        r.comparisonCount,
        ctx.baseUrl,
        refs,
        "sharedPermission" in r ? r.sharedPermission : null,
      ),
    ),
  };
}
