import type {
  AutouserRubric,
  AutouserRubricCreateInput,
  AutouserRubricUpdateInput,
  PageQuery,
} from "@rubricon/contracts";
import { autouserRubrics, type DbOrTx, newId, templates } from "@rubricon/db";
import { and, desc, eq, sql } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, paginate } from "../../kernel";
import { unknownTemplateIds } from "../templates/templates";
import { assertEditable, loadVisibleAutouser } from "./access";
import { type AutouserRow, type AutouserRubricRow, toAutouserRubric } from "./serialize";

function rubricNotFound(id: string): ApiError {
  return ApiError.notFound("rubric_not_found", `No such rubric: ${id}.`);
}

/** The newest version of each template's rubric, by template id. */
export async function latestRubrics(db: DbOrTx, autouserId: string): Promise<AutouserRubricRow[]> {
  return db
    .selectDistinctOn([autouserRubrics.dimensionId])
    .from(autouserRubrics)
    .where(eq(autouserRubrics.autouserId, autouserId))
    .orderBy(autouserRubrics.dimensionId, desc(autouserRubrics.version));
}

/**
 * The rubric a run uses for each template: the newest frozen version (calibrated against humans) when there is
 * one, else the newest version. Edits after a freeze wait for the next freeze before runs see them.
 */
export async function activeRubrics(db: DbOrTx, autouserId: string): Promise<AutouserRubricRow[]> {
  return db
    .selectDistinctOn([autouserRubrics.dimensionId])
    .from(autouserRubrics)
    .where(eq(autouserRubrics.autouserId, autouserId))
    .orderBy(autouserRubrics.dimensionId, desc(autouserRubrics.isFrozen), desc(autouserRubrics.version));
}

async function loadRubric(db: DbOrTx, autouserId: string, rubricId: string): Promise<AutouserRubricRow> {
  const [row] = await db
    .select()
    .from(autouserRubrics)
    .where(and(eq(autouserRubrics.id, rubricId), eq(autouserRubrics.autouserId, autouserId)))
    .limit(1);
  if (!row) throw rubricNotFound(rubricId);
  return row;
}

export async function listAutouserRubrics(ctx: CoreContext, actor: Actor, id: string, query: PageQuery) {
  await loadVisibleAutouser(ctx.db, actor, id);
  const page = await paginate<AutouserRubricRow>({
    db: ctx.db,
    table: autouserRubrics,
    resource: "autouser_rubric",
    where: eq(autouserRubrics.autouserId, id),
    query,
  });
  return { ...page, data: page.data.map(toAutouserRubric) };
}

export async function getAutouserRubric(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  rubricId: string,
): Promise<AutouserRubric> {
  await loadVisibleAutouser(ctx.db, actor, id);
  return toAutouserRubric(await loadRubric(ctx.db, id, rubricId));
}

/** A rubric rates a template the autouser's team may use: its own or a system one. */
async function templateName(db: DbOrTx, autouser: AutouserRow, dimensionId: string): Promise<string> {
  const unknown = await unknownTemplateIds(db, autouser.teamId ?? "", [dimensionId]);
  const [template] =
    unknown.length === 0
      ? await db
          .select({ name: templates.name })
          .from(templates)
          .where(eq(templates.id, dimensionId))
          .limit(1)
      : [];
  if (!template) throw ApiError.invalid("dimensionId", `No such template: ${dimensionId}.`);
  return template.name;
}

export async function createAutouserRubric(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  input: AutouserRubricCreateInput,
): Promise<AutouserRubric> {
  return ctx.db.transaction(async (tx) => {
    const autouser = await loadVisibleAutouser(tx, actor, id, true);
    assertEditable(autouser);
    const nameOfTemplate = await templateName(tx, autouser, input.dimensionId);
    const name = input.name ?? nameOfTemplate;
    const [existing] = await tx
      .select({ id: autouserRubrics.id })
      .from(autouserRubrics)
      .where(and(eq(autouserRubrics.autouserId, id), eq(autouserRubrics.dimensionId, input.dimensionId)))
      .orderBy(desc(autouserRubrics.version))
      .limit(1);
    if (existing) {
      throw new ApiError(
        "rubric_already_exists",
        `This autouser already has rubric ${existing.id} for template ${input.dimensionId}; change it with PATCH.`,
        { param: "dimensionId", details: { rubricId: existing.id } },
      );
    }
    const now = ctx.clock.now();
    const [row] = await tx
      .insert(autouserRubrics)
      .values({
        id: newId("rubric"),
        autouserId: id,
        dimensionId: input.dimensionId,
        name,
        version: 1,
        guidance: input.guidance,
        weights: input.weights,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return toAutouserRubric(row!);
  });
}

/**
 * Changes a rubric. An unfrozen newest version changes in place; a frozen one never changes, so the change is
 * written as the next version (a new id) and answered. Older versions are history: changing one is a 409.
 */
export async function updateAutouserRubric(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  rubricId: string,
  input: AutouserRubricUpdateInput,
): Promise<AutouserRubric> {
  return ctx.db.transaction(async (tx) => {
    // Locking the autouser orders concurrent edits of its rubrics, so two cannot both write the next version.
    const autouser = await loadVisibleAutouser(tx, actor, id, true);
    assertEditable(autouser);
    const current = await loadRubric(tx, id, rubricId);
    const [latest] = await tx
      .select({ id: autouserRubrics.id, version: autouserRubrics.version })
      .from(autouserRubrics)
      .where(and(eq(autouserRubrics.autouserId, id), eq(autouserRubrics.dimensionId, current.dimensionId)))
      .orderBy(desc(autouserRubrics.version))
      .limit(1);
    if (latest && latest.version > current.version) {
      throw new ApiError(
        "rubric_superseded",
        `Rubric ${rubricId} is version ${current.version}; version ${latest.version} (${latest.id}) replaced it. Change the newest version.`,
        { details: { latestRubricId: latest.id } },
      );
    }
    const next = {
      name: input.name ?? current.name,
      guidance: input.guidance ?? current.guidance,
      weights: input.weights ?? current.weights,
    };
    const unchanged =
      next.name === current.name &&
      next.guidance === current.guidance &&
      JSON.stringify(next.weights) === JSON.stringify(current.weights);
    if (unchanged) return toAutouserRubric(current);
    const now = ctx.clock.now();
    if (!current.isFrozen) {
      const [updated] = await tx
        .update(autouserRubrics)
        .set({ ...next, updatedAt: now })
        .where(and(eq(autouserRubrics.id, rubricId), sql`not ${autouserRubrics.isFrozen}`))
        .returning();
      // Frozen since it was read: the change becomes the next version, as for any frozen rubric.
      if (updated) return toAutouserRubric(updated);
    }
    const [row] = await tx
      .insert(autouserRubrics)
      .values({
        id: newId("rubric"),
        autouserId: id,
        dimensionId: current.dimensionId,
        ...next,
        version: current.version + 1,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return toAutouserRubric(row!);
  });
}
