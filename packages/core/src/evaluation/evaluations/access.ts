import type { SharePermission } from "@rubricon/contracts";
import { type Db, type DbOrTx, evaluations, hotStatement, type Params, teams, users } from "@rubricon/db";
import { eq, getTableColumns, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Actor } from "../../kernel";
import { ApiError } from "../../kernel";
import type { EvaluationRow, TemplateRefs } from "./serialize";

export function evaluationNotFound(id: string): ApiError {
  return ApiError.notFound("evaluation_not_found", `No such evaluation: ${id}.`);
}

// Written as plain SQL on purpose: in a single-table select Drizzle renders column references unqualified, which
// inside a subquery would bind to the subquery's own table rather than to the outer evaluations row.
function boundToTeam(teamId: string | SQLWrapper): SQL<AccessLevel | null> {
  return sql<AccessLevel | null>`(case when evaluations.team_id = ${teamId} then 'TEAM' end)`;
}

function memberOrShare(userId: string | SQLWrapper): SQL<AccessLevel | null> {
  return sql<AccessLevel | null>`(case when exists (select 1 from team_members m
      where m.team_id = evaluations.team_id and m.user_id = ${userId}) then 'TEAM'
    else (select s.permission from evaluation_shares s
      where s.evaluation_id = evaluations.id and s.user_id = ${userId}) end)`;
}

/** `TEAM` (a member of the owning team, or its key) may do everything a share's OWNER may. */
export type AccessLevel = "TEAM" | SharePermission;
const RANK: Record<AccessLevel, number> = { VIEWER: 1, EDITOR: 2, OWNER: 3, TEAM: 3 };

export function allows(level: AccessLevel, need: SharePermission): boolean {
  return RANK[level] >= RANK[need];
}

const NEEDS: Record<SharePermission, string> = {
  VIEWER: "view",
  EDITOR: "edit",
  OWNER: "own",
};

function insufficient(id: string, level: AccessLevel, need: SharePermission): ApiError {
  return ApiError.forbidden(
    "insufficient_permission",
    `Evaluation ${id} is shared with you as ${level}; this needs ${need} (${NEEDS[need]}) permission.`,
    { permission: level, required: need },
  );
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

export interface AccessOptions {
  forUpdate?: boolean;
  /**
   * The row under a shared lock (`FOR SHARE`), access checked in the same statement: a caller that would lock the
   * row anyway (a new rating) spends no query of its own on access.
   */
  forShare?: boolean;
  /**
   * The share permission the action needs; members of the owning team (and its keys) have them all. Defaults to
   * OWNER, so an action nobody classified stays with the team and the evaluation's owners.
   */
  need?: SharePermission;
}

/**
 * The evaluation if the actor may see it, with how it reaches it. Not-found and no-permission are the same 404,
 * except for a signed-in user opening a link-shared evaluation of another team: 403 evaluation_no_access, so they
 * can ask for access. Seen through a share too weak for the action: 403 insufficient_permission.
 */
function evaluationAccess(db: Db, id: SQLWrapper, visible: SQL<AccessLevel | null>) {
  return db
    .select({ ...getTableColumns(evaluations), visible })
    .from(evaluations)
    .where(eq(evaluations.id, id))
    .limit(1);
}

/**
 * How the actor reaches an evaluation, computed in the same query as the row: `TEAM` when it may act on the
 * evaluation's team (as `findMembership` decides it), else the permission of a direct share, else null. A bound
 * credential (API key, OAuth token) acts only on its team, which exists while the evaluation does (foreign key),
 * even if its creator has since left the team; shares are for people, so only user principals read them.
 *
 * Every request on an evaluation but the single read (which reads its extras too) starts with one of these,
 * so they are hot statements, built once.
 */
type AccessValues = { id: string; teamId: string; userId: string };
const evaluationAccessForTeam = hotStatement("evaluation_access_for_team", (db, $: Params<AccessValues>) =>
  evaluationAccess(db, $.id, boundToTeam($.teamId)),
);
const evaluationAccessForMember = hotStatement(
  "evaluation_access_for_member",
  (db, $: Params<AccessValues>) => evaluationAccess(db, $.id, memberOrShare($.userId)),
);
const evaluationAccessForTeamForUpdate = hotStatement(
  "evaluation_access_for_team_for_update",
  (db, $: Params<AccessValues>) => evaluationAccess(db, $.id, boundToTeam($.teamId)).for("update"),
);
const evaluationAccessForMemberForUpdate = hotStatement(
  "evaluation_access_for_member_for_update",
  (db, $: Params<AccessValues>) => evaluationAccess(db, $.id, memberOrShare($.userId)).for("update"),
);

const evaluationAccessForTeamForShare = hotStatement(
  "evaluation_access_for_team_for_share",
  (db, $: Params<AccessValues>) => evaluationAccess(db, $.id, boundToTeam($.teamId)).for("share"),
);
const evaluationAccessForMemberForShare = hotStatement(
  "evaluation_access_for_member_for_share",
  (db, $: Params<AccessValues>) => evaluationAccess(db, $.id, memberOrShare($.userId)).for("share"),
);

export async function loadEvaluationAccess(
  db: DbOrTx,
  actor: Actor,
  id: string,
  opts: AccessOptions = {},
): Promise<{ row: EvaluationRow; access: AccessLevel }> {
  const statement = actor.boundTeamId
    ? opts.forUpdate
      ? evaluationAccessForTeamForUpdate
      : opts.forShare
        ? evaluationAccessForTeamForShare
        : evaluationAccessForTeam
    : opts.forUpdate
      ? evaluationAccessForMemberForUpdate
      : opts.forShare
        ? evaluationAccessForMemberForShare
        : evaluationAccessForMember;
  const [found] = await statement(db, {
    id,
    teamId: actor.boundTeamId ?? "",
    userId: actor.userId,
  });
  const { visible, ...row } = await checkVisible(db, actor, id, found, opts.need ?? "OWNER");
  return { row, access: visible };
}

export async function loadVisibleEvaluation(
  db: DbOrTx,
  actor: Actor,
  id: string,
  opts: AccessOptions = {},
): Promise<EvaluationRow> {
  return (await loadEvaluationAccess(db, actor, id, opts)).row;
}

/** As `loadVisibleEvaluation`, with the comparison count and template refs read in the same query. */
export async function loadVisibleEvaluationWithExtras(
  db: DbOrTx,
  actor: Actor,
  id: string,
): Promise<EvaluationWithExtras & { access: AccessLevel }> {
  const [found] = actor.boundTeamId
    ? await evaluationWithExtrasForTeam(db, { id, teamId: actor.boundTeamId })
    : await evaluationWithExtrasForMember(db, { id, userId: actor.userId });
  // The row was made for this call, so it is marked rather than copied (a list page or a read copies no row).
  const row = await checkVisible(db, actor, id, found, "VIEWER");
  return Object.assign(row, { access: row.visible });
}

function evaluationWithExtras(db: Db, id: SQLWrapper, visible: SQL<AccessLevel | null>) {
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
  (db, $: Params<{ id: string; userId: string }>) => evaluationWithExtras(db, $.id, memberOrShare($.userId)),
);

async function checkVisible<R extends EvaluationRow & { visible: AccessLevel | null }>(
  db: DbOrTx,
  actor: Actor,
  id: string,
  row: R | undefined,
  need: SharePermission,
): Promise<R & { visible: AccessLevel }> {
  if (!row) throw evaluationNotFound(id);
  const level = row.visible;
  if (level) {
    if (!allows(level, need)) throw insufficient(id, level, need);
    return row as R & { visible: AccessLevel };
  }
  if (actor.principal === "session" && row.shareAccess === "ANYONE_WITH_LINK" && row.status !== "Draft") {
    const [team] = await db.select({ name: teams.name }).from(teams).where(eq(teams.id, row.teamId)).limit(1);
    const [user] = await db
      .select({ email: users.email })
      .from(users)
      .where(eq(users.id, actor.userId))
      .limit(1);
    throw ApiError.forbidden(
      "evaluation_no_access",
      `You are not a member of the team that owns this evaluation; request access with POST /evaluations/${id}/access-requests.`,
      {
        teamName: team?.name ?? null,
        callerEmail: user?.email ?? null,
      },
    );
  }
  throw evaluationNotFound(id);
}
