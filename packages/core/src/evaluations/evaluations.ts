import type {
  Evaluation,
  EvaluationCreateInput,
  EvaluationUpdateInput,
  PageQuery,
} from "@rubricon/contracts";
import {
  comparisons,
  type Db,
  type DbOrTx,
  evaluations,
  hotStatement,
  newId,
  type Params,
  rowParams,
  type StimulusRow,
  teams,
} from "@rubricon/db";
import { and, eq, inArray, type SQLWrapper, sql } from "drizzle-orm";
import { emitEvent } from "../events/emit";
import { listOrder, listStatement, type PageParts, recordTombstone } from "../pagination/paginate";
import type { Actor, CoreContext } from "../shared/context";
import { hashPassword, randomToken } from "../shared/crypto";
import { ApiError } from "../shared/errors";
import { actorTeamIds, resolveTargetTeam } from "../teams/access";
import { unknownTemplateIds } from "../templates/templates";
import { recordUsage } from "../usage/usage";
import {
  evaluationExtras,
  loadVisibleEvaluation,
  loadVisibleEvaluationWithExtras,
  templateRefsFor,
  templateRefsOf,
} from "./access";
import { stimulusFor } from "./comparisons";
import { emitStatusChange, serializeEvaluation } from "./lifecycle";
import { type EvaluationRow, toEvaluation, toEvaluationEventObject } from "./serialize";
import { assertTransition, isEditable } from "./status";

async function assertTemplatesUsable(db: DbOrTx, teamId: string, ids: string[] | undefined): Promise<void> {
  if (!ids) return;
  const unknown = await unknownTemplateIds(db, teamId, ids);
  if (unknown.length > 0) {
    const index = ids.indexOf(unknown[0]!);
    throw ApiError.invalid(`selectedDimensionIds[${index}]`, `No such template: ${unknown[0]}.`);
  }
}

export const DEFAULT_TEMPLATE_ID = "overall";
/** Planning figure for dry runs: what one autouser rating of one comparison costs on the default model. */
export const ESTIMATED_USD_PER_AUTOUSER_RUN = 0.02;

function comparisonInputs(input: EvaluationCreateInput): { name: string | null; stimulus: StimulusRow }[] {
  if (input.type === "SSE") {
    return (input.designUrls ?? []).map((d) => ({
      name: d.label ?? null,
      stimulus: stimulusFor("SSE", {
        url: d.url,
        fileId: d.fileId,
        stimulusType: d.stimulusType,
      }),
    }));
  }
  return (input.comparisonPairs ?? []).map((p) => ({
    name: p.label ?? null,
    stimulus: stimulusFor("SxS", p),
  }));
}

function dryRunResult(input: EvaluationCreateInput, comparisonCount: number) {
  const autouserCount = (input.selectedAutousers ?? []).reduce((n, a) => n + a.agentCount, 0);
  const totalRuns = autouserCount * comparisonCount;
  const warnings: string[] = [];
  if (comparisonCount === 0)
    warnings.push("The evaluation has no comparisons yet; raters will have nothing to rate.");
  if (autouserCount > 0 && input.evaluationMethod === "manual") {
    warnings.push(
      "Autousers are selected but `evaluationMethod` is manual; they will not run until it is ai or both.",
    );
  }
  if (input.evaluationMethod !== "manual" && autouserCount === 0) {
    warnings.push("`evaluationMethod` includes ai but no autousers are selected.");
  }
  return {
    object: "evaluation_dry_run" as const,
    dryRun: true as const,
    persisted: false as const,
    wouldRun: { autouserCount, comparisonCount, totalRuns },
    costEstimate: {
      currency: "usd" as const,
      estimatedUsd: Math.round(totalRuns * ESTIMATED_USD_PER_AUTOUSER_RUN * 100) / 100,
      autouserRatings: totalRuns,
    },
    warnings,
  };
}

/** Every column from the caller (the row it returns is built in memory), and the template names from SQL. */
const insertEvaluation = hotStatement("insert_evaluation", (db, $: Params<EvaluationRow>) =>
  db
    .insert(evaluations)
    .values(rowParams(evaluations, $))
    .returning({ templateRefs: evaluationExtras.templateRefs }),
);

type ComparisonRow = typeof comparisons.$inferSelect;
const COMPARISON_COLUMNS = [
  "id",
  "evaluationId",
  "name",
  "position",
  "stimulus",
  "createdAt",
  "updatedAt",
] as const satisfies readonly (keyof ComparisonRow)[];
type ComparisonColumn = (typeof COMPARISON_COLUMNS)[number];
/** The values of a multi-row insert: each row's columns named `<column><position>`. */
type ComparisonValues = Record<`${ComparisonColumn}${number}`, ComparisonRow[ComparisonColumn]>;

const comparisonInserts = new Map<number, ReturnType<typeof comparisonInsert>>();

function comparisonInsert(count: number) {
  return hotStatement(`insert_comparisons_${count}`, (db, $: Params<ComparisonValues>) =>
    db.insert(comparisons).values(
      // `$` answers a placeholder for every name; the index type alone cannot say so.
      Array.from({ length: count }, (_, p) => ({
        id: $[`id${p}`]!,
        evaluationId: $[`evaluationId${p}`]!,
        name: $[`name${p}`]!,
        position: $[`position${p}`]!,
        stimulus: $[`stimulus${p}`]!,
        createdAt: $[`createdAt${p}`]!,
        updatedAt: $[`updatedAt${p}`]!,
      })),
    ),
  );
}

/** One multi-row insert per number of comparisons. */
async function insertComparisons(tx: DbOrTx, rows: ComparisonRow[]): Promise<void> {
  let statement = comparisonInserts.get(rows.length);
  if (!statement) {
    statement = comparisonInsert(rows.length);
    comparisonInserts.set(rows.length, statement);
  }
  const values: ComparisonValues = {};
  rows.forEach((row, p) => {
    for (const column of COMPARISON_COLUMNS) values[`${column}${p}`] = row[column];
  });
  await statement(tx, values);
}

export async function createEvaluation(ctx: CoreContext, actor: Actor, input: EvaluationCreateInput) {
  const { team } = await resolveTargetTeam(ctx.db, actor, input.teamId);
  const items = comparisonInputs(input);
  await assertTemplatesUsable(ctx.db, team.id, input.selectedDimensionIds);
  if (input.dryRun) return dryRunResult(input, items.length);

  const sharePasswordHash = input.sharePassword ? await hashPassword(input.sharePassword) : null;
  const now = ctx.clock.now();
  const row: EvaluationRow = {
    id: newId("evaluation"),
    teamId: team.id,
    createdBy: actor.userId,
    name: input.name,
    description: input.description ?? null,
    type: input.type,
    status: input.status,
    shareAccess: input.shareAccess,
    shareToken: randomToken(18),
    sharePasswordHash,
    shareAccessVersion: 1,
    allowMultipleRatings: input.allowMultipleRatings,
    evaluationMethod: input.evaluationMethod,
    instructions: input.instructions ?? null,
    scenario: input.scenario ?? null,
    selectedDimensionIds: input.selectedDimensionIds ?? [DEFAULT_TEMPLATE_ID],
    selectedAutousers: input.selectedAutousers ?? [],
    ratingDeadline: input.ratingDeadline ? new Date(input.ratingDeadline) : null,
    targetRatingsPerComparison: input.targetRatingsPerComparison ?? null,
    collectRaterName: input.collectRaterName,
    collectRaterEmail: input.collectRaterEmail,
    ratingsRevision: 0,
    endedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  // Comparisons made together share one updatedAt, so lists order them by id: the largest id goes to position 0
  // and an evaluation's comparisons list in position order (docs/decisions.md, "Comparison order").
  const comparisonIds = items.map(() => newId("comparison")).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  return ctx.db.transaction(async (tx) => {
    const [inserted] = await insertEvaluation(tx, row);
    if (items.length > 0) {
      await insertComparisons(
        tx,
        items.map((c, position) => ({
          id: comparisonIds[position]!,
          evaluationId: row.id,
          name: c.name,
          position,
          stimulus: c.stimulus,
          createdAt: now,
          updatedAt: now,
        })),
      );
    }
    const templates = templateRefsOf(inserted ? [inserted] : []);
    const evaluation = toEvaluation(row, items.length, ctx.baseUrl, templates);
    await emitEvent(tx, ctx, {
      type: "evaluation.created",
      teamId: team.id,
      object: toEvaluationEventObject(evaluation),
    });
    // Counted in the insert's transaction (a refusal leaves nothing behind, and racing creates cannot pass it),
    // last, so the team's counter row stays locked only until the commit.
    await recordUsage(tx, team, "evals_mo", now);
    return evaluation;
  });
}

export async function getEvaluation(ctx: CoreContext, actor: Actor, id: string): Promise<Evaluation> {
  const row = await loadVisibleEvaluationWithExtras(ctx.db, actor, id);
  return toEvaluation(row, row.comparisonCount, ctx.baseUrl, templateRefsOf([row]));
}

/**
 * A page of evaluations of one or more teams, with their comparison counts and template names. Each team's
 * rows are read from its index in list order and the teams' pages merged: a filter `team_id = any(...)` over the
 * table could not use the index's order and would sort every evaluation of the teams. The page is read first and
 * the counts grouped over its ids: a count per row as a correlated subquery cost Postgres about twice the whole
 * page read.
 */
function evaluationsPage(
  db: Db,
  teamIds: SQLWrapper,
  status: SQLWrapper | undefined,
  { keyset, backwards, limit }: PageParts,
) {
  const teamPage = db
    .select()
    .from(evaluations)
    .where(and(eq(evaluations.teamId, teams.id), status ? eq(evaluations.status, status) : undefined, keyset))
    .orderBy(...listOrder(evaluations, backwards))
    .limit(limit)
    .as("team_page");
  const page = db.$with("page").as(
    db
      .select(teamPage._.selectedFields)
      .from(teams)
      .crossJoinLateral(teamPage)
      .where(sql`${teams.id} = any(${teamIds})`)
      .orderBy(...listOrder(teamPage, backwards))
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

interface EvaluationListValues {
  teamIds: string[];
  status?: EvaluationRow["status"];
}

const evaluationsOfTeams = listStatement({
  name: "evaluations_of_teams",
  table: evaluations,
  resource: "evaluation",
  where: ($: Params<EvaluationListValues>) => sql`${evaluations.teamId} = any(${$.teamIds})`,
  page: (db, $, page) => evaluationsPage(db, $.teamIds, undefined, page),
});

const evaluationsOfTeamsInStatus = listStatement({
  name: "evaluations_of_teams_in_status",
  table: evaluations,
  resource: "evaluation",
  where: ($: Params<EvaluationListValues>) =>
    and(sql`${evaluations.teamId} = any(${$.teamIds})`, eq(evaluations.status, $.status)),
  page: (db, $, page) => evaluationsPage(db, $.teamIds, $.status, page),
});

export async function listEvaluations(
  ctx: CoreContext,
  actor: Actor,
  query: PageQuery & { teamId?: string; status?: EvaluationRow["status"] },
) {
  let teamIds: string[];
  if (query.teamId !== undefined) {
    teamIds = [(await resolveTargetTeam(ctx.db, actor, query.teamId)).team.id];
  } else {
    teamIds = await actorTeamIds(ctx.db, actor);
  }
  if (teamIds.length === 0)
    return {
      data: [],
      hasMore: false,
      usedLegacyCursor: query.cursor !== undefined,
    };
  const page = query.status
    ? await evaluationsOfTeamsInStatus(ctx.db, { teamIds, status: query.status }, query)
    : await evaluationsOfTeams(ctx.db, { teamIds }, query);
  const refs = templateRefsOf(page.data);
  return {
    ...page,
    data: page.data.map((r) => toEvaluation(r, r.comparisonCount, ctx.baseUrl, refs)),
  };
}

export async function updateEvaluation(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  input: EvaluationUpdateInput,
) {
  const sharePasswordHash = input.sharePassword ? await hashPassword(input.sharePassword) : undefined;
  return ctx.db.transaction(async (tx) => {
    const current = await loadVisibleEvaluation(tx, actor, id, {
      forUpdate: true,
    });
    await assertTemplatesUsable(tx, current.teamId, input.selectedDimensionIds);
    const { status, sharePassword: _omit, ratingDeadline, ...rest } = input;
    const fields = {
      ...rest,
      ...(ratingDeadline !== undefined
        ? { ratingDeadline: ratingDeadline ? new Date(ratingDeadline) : null }
        : {}),
    };
    const changesFields = Object.keys(fields).length > 0 || sharePasswordHash !== undefined;
    if (changesFields && !isEditable(current.status)) {
      throw new ApiError(
        "evaluation_not_editable",
        `This evaluation is ${current.status} and read-only${current.status === "Ended" ? "; it can only be archived" : ""}.`,
      );
    }
    const statusChanges = status !== undefined && status !== current.status;
    if (statusChanges) assertTransition(current.status, status);
    const shareAccess = fields.shareAccess ?? current.shareAccess;
    if (shareAccess === "PASSWORD_PROTECTED" && !sharePasswordHash && !current.sharePasswordHash) {
      throw ApiError.invalid("sharePassword", "PASSWORD_PROTECTED needs a `sharePassword`.");
    }
    if (!changesFields && !statusChanges) {
      return serializeEvaluation(tx, ctx, current);
    }
    const now = ctx.clock.now();
    const [row] = await tx
      .update(evaluations)
      .set({
        ...fields,
        // A new password ends the sessions of raters who started with the old one.
        ...(sharePasswordHash
          ? { sharePasswordHash, shareAccessVersion: sql`${evaluations.shareAccessVersion} + 1` }
          : {}),
        ...(statusChanges ? { status } : {}),
        ...(statusChanges && status === "Ended" ? { endedAt: now } : {}),
        updatedAt: now,
      })
      .where(eq(evaluations.id, id))
      .returning();
    const evaluation = await serializeEvaluation(tx, ctx, row!);
    if (statusChanges) await emitStatusChange(tx, ctx, row!, evaluation, current.status);
    return evaluation;
  });
}

export async function deleteEvaluation(ctx: CoreContext, actor: Actor, id: string) {
  return ctx.db.transaction(async (tx) => {
    await loadVisibleEvaluation(tx, actor, id, { forUpdate: true });
    await recordTombstone(tx, evaluations, "evaluation", [id]);
    await tx.delete(evaluations).where(eq(evaluations.id, id));
    return { id, deleted: true as const };
  });
}
