import { type Db, type DbOrTx, evaluations, hotStatement, type Params, teams, users } from "@rubricon/db";
import { eq, getTableColumns, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Actor } from "../shared/context";
import { ApiError } from "../shared/errors";
import type { EvaluationRow, TemplateRefs } from "./serialize";

export function evaluationNotFound(id: string): ApiError {
  return ApiError.notFound("evaluation_not_found", `No such evaluation: ${id}.`);
}

/**
 * Whether the actor may act on the evaluation's team, as `findMembership` decides it, computed in the same query
 * as the row. A bound credential may act only on its team, which exists while the evaluation does (foreign key),
 * even if its creator has since left the team; anyone else needs a membership row.
 */
function mayActOnTeam(actor: Actor): SQL<boolean> {
  return actor.boundTeamId ? boundToTeam(actor.boundTeamId) : memberOfTeam(actor.userId);
}

// Written as plain SQL on purpose: in a single-table select Drizzle renders column references unqualified, which
// inside a subquery would bind to the subquery's own table rather than to the outer evaluations row.
function boundToTeam(teamId: string | SQLWrapper): SQL<boolean> {
  return sql<boolean>`(evaluations.team_id = ${teamId})`;
}

function memberOfTeam(userId: string | SQLWrapper): SQL<boolean> {
  return sql<boolean>`exists (select 1 from team_members m
    where m.team_id = evaluations.team_id and m.user_id = ${userId})`;
}

/** The id, name and version of each template named in `ids` (a text[] expression), as a JSON array of triples. */
export function templateRefsFor(ids: SQLWrapper): SQL<[string, string, number][]> {
  return sql<[string, string, number][]>`(select
    coalesce(json_agg(json_build_array(t.id, t.name, t.version)), '[]'::json)
    from templates t where t.id = any(${ids}))`;
}

/** Per-row extras a full evaluation needs: how many comparisons it has, and its templates' names and versions. */
export const evaluationExtras = {
  comparisonCount: sql<number>`(select count(*)::int from comparisons c where c.evaluation_id = evaluations.id)`,
  templateRefs: templateRefsFor(sql`evaluations.selected_dimension_ids`),
};

/** The template refs of rows read with `evaluationExtras`, in the form `toEvaluation` takes. */
export function templateRefsOf(rows: Pick<EvaluationWithExtras, "templateRefs">[]): TemplateRefs {
  const refs: TemplateRefs = new Map();
  for (const row of rows) {
    for (const [id, name, version] of row.templateRefs) refs.set(id, { name, version });
  }
  return refs;
}

export type EvaluationWithExtras = EvaluationRow & {
  comparisonCount: number;
  templateRefs: [string, string, number][];
};

/**
 * The evaluation if the actor may see it. Not-found and no-permission are the same 404, except for a signed-in
 * user opening a link-shared evaluation of another team: 403 evaluation_no_access, so they can ask for access.
 */
export async function loadVisibleEvaluation(
  db: DbOrTx,
  actor: Actor,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<EvaluationRow> {
  const query = db
    .select({ ...getTableColumns(evaluations), visible: mayActOnTeam(actor) })
    .from(evaluations)
    .where(eq(evaluations.id, id))
    .limit(1);
  const [found] = opts.forUpdate ? await query.for("update") : await query;
  const { visible, ...row } = await checkVisible(db, actor, id, found);
  return row;
}

/** As `loadVisibleEvaluation`, with the comparison count and template refs read in the same query. */
export async function loadVisibleEvaluationWithExtras(
  db: DbOrTx,
  actor: Actor,
  id: string,
): Promise<EvaluationWithExtras> {
  const [found] = actor.boundTeamId
    ? await evaluationWithExtrasForTeam(db, { id, teamId: actor.boundTeamId })
    : await evaluationWithExtrasForMember(db, { id, userId: actor.userId });
  const { visible, ...row } = await checkVisible(db, actor, id, found);
  return row;
}

function evaluationWithExtras(db: Db, id: SQLWrapper, visible: SQL<boolean>) {
  return db
    .select({ ...getTableColumns(evaluations), ...evaluationExtras, visible })
    .from(evaluations)
    .where(eq(evaluations.id, id))
    .limit(1);
}

const evaluationWithExtrasForTeam = hotStatement(
  "evaluation_with_extras_for_team",
  (db, $: Params<{ id: string; teamId: string }>) => evaluationWithExtras(db, $.id, boundToTeam($.teamId)),
);
const evaluationWithExtrasForMember = hotStatement(
  "evaluation_with_extras_for_member",
  (db, $: Params<{ id: string; userId: string }>) => evaluationWithExtras(db, $.id, memberOfTeam($.userId)),
);

async function checkVisible<R extends EvaluationRow & { visible: boolean }>(
  db: DbOrTx,
  actor: Actor,
  id: string,
  row: R | undefined,
): Promise<R> {
  if (!row) throw evaluationNotFound(id);
  if (row.visible) return row;
  if (actor.principal === "session" && row.shareAccess === "ANYONE_WITH_LINK" && row.status !== "Draft") {
    const [team] = await db.select({ name: teams.name }).from(teams).where(eq(teams.id, row.teamId)).limit(1);
    const [user] = await db
      .select({ email: users.email })
      .from(users)
      .where(eq(users.id, actor.userId))
      .limit(1);
    throw ApiError.forbidden(
      "evaluation_no_access",
      "You are not a member of the team that owns this evaluation; you can request access.",
      {
        teamName: team?.name ?? null,
        callerEmail: user?.email ?? null,
      },
    );
  }
  throw evaluationNotFound(id);
}
