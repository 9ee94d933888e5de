import type { PageQuery, Template, TemplateCreateInput, TemplateUpdateInput } from "@rubricon/contracts";
import { type DbOrTx, evaluations, newId, templates, templateVersions } from "@rubricon/db";
import { and, eq, inArray, or, sql } from "drizzle-orm";
import { actorTeamIds, resolveTargetTeam } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, paginate, recordTombstone } from "../../kernel";
import {
  assertScaleConsistent,
  bodyWithDefaults,
  type StoredBody,
  type TemplateRow,
  type TemplateVersionRow,
  toTemplate,
  toTemplateVersion,
} from "./serialize";

function notFound(id: string): ApiError {
  return ApiError.notFound("template_not_found", `No such template: ${id}.`);
}

/** A template the actor may see: a system one, or one of a team it can act on. */
export async function loadVisibleTemplate(
  db: DbOrTx,
  actor: Actor,
  id: string,
  forUpdate = false,
): Promise<TemplateRow> {
  const query = db.select().from(templates).where(eq(templates.id, id)).limit(1);
  const [row] = forUpdate ? await query.for("update") : await query;
  if (!row) throw notFound(id);
  if (row.isSystem) return row;
  const teamIds = await actorTeamIds(db, actor);
  if (!row.teamId || !teamIds.includes(row.teamId)) throw notFound(id);
  return row;
}

function assertEditable(row: TemplateRow): void {
  if (row.isSystem) {
    throw new ApiError(
      "template_read_only",
      "System templates are read-only; duplicate one to make your own version.",
    );
  }
}

async function writeVersion(
  tx: DbOrTx,
  row: TemplateRow,
  changeType: TemplateVersionRow["changeType"],
  changeSummary: string,
  now: Date,
): Promise<void> {
  await tx.insert(templateVersions).values({
    id: newId("templateVersion"),
    templateId: row.id,
    version: row.version,
    changeType,
    changeSummary,
    snapshot: { name: row.name, body: row.body },
    createdAt: now,
    updatedAt: now,
  });
}

export async function createTemplate(
  ctx: CoreContext,
  actor: Actor,
  input: TemplateCreateInput,
): Promise<Template> {
  const { team } = await resolveTargetTeam(ctx.db, actor, input.teamId);
  const { teamId: _team, name, ...fields } = input;
  const body = bodyWithDefaults(fields as Partial<StoredBody>);
  assertScaleConsistent(body);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(templates)
      .values({
        id: newId("template"),
        teamId: team.id,
        isSystem: false,
        name,
        version: 1,
        body,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await writeVersion(tx, row!, "created", "Created", now);
    return toTemplate(row!);
  });
}

export async function listTemplates(ctx: CoreContext, actor: Actor, query: PageQuery & { teamId?: string }) {
  const teamIds = query.teamId
    ? [(await resolveTargetTeam(ctx.db, actor, query.teamId)).team.id]
    : await actorTeamIds(ctx.db, actor);
  const page = await paginate<TemplateRow>({
    db: ctx.db,
    table: templates,
    resource: "template",
    where: or(
      eq(templates.isSystem, true),
      teamIds.length > 0 ? inArray(templates.teamId, teamIds) : undefined,
    ),
    query,
  });
  return { ...page, data: page.data.map(toTemplate) };
}

export async function getTemplate(ctx: CoreContext, actor: Actor, id: string): Promise<Template> {
  return toTemplate(await loadVisibleTemplate(ctx.db, actor, id));
}

function changedFields(current: TemplateRow, name: string, body: StoredBody): string[] {
  const before = {
    name: current.name,
    ...bodyWithDefaults(current.body as Partial<StoredBody>),
  } as Record<string, unknown>;
  const after = { name, ...body } as Record<string, unknown>;
  return Object.keys(after).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

/** Applies a new name and body as the next version, naming the changed fields in the version's summary. */
async function applyNewVersion(
  tx: DbOrTx,
  ctx: CoreContext,
  current: TemplateRow,
  name: string,
  body: StoredBody,
  summary: (changed: string[]) => string,
): Promise<Template> {
  const changed = changedFields(current, name, body);
  if (changed.length === 0) return toTemplate(current);
  const now = ctx.clock.now();
  const [row] = await tx
    .update(templates)
    .set({ name, body, version: current.version + 1, updatedAt: now })
    .where(eq(templates.id, current.id))
    .returning();
  await writeVersion(tx, row!, "updated", summary(changed), now);
  return toTemplate(row!);
}

export async function updateTemplate(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  input: TemplateUpdateInput,
): Promise<Template> {
  return ctx.db.transaction(async (tx) => {
    const current = await loadVisibleTemplate(tx, actor, id, true);
    assertEditable(current);
    const { name, ...fields } = input;
    const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
    const body = {
      ...bodyWithDefaults(current.body as Partial<StoredBody>),
      ...defined,
    } as StoredBody;
    assertScaleConsistent(body);
    return applyNewVersion(
      tx,
      ctx,
      current,
      name ?? current.name,
      body,
      (changed) => `Changed ${changed.join(", ")}`,
    );
  });
}

export async function deleteTemplate(ctx: CoreContext, actor: Actor, id: string) {
  return ctx.db.transaction(async (tx) => {
    const current = await loadVisibleTemplate(tx, actor, id, true);
    assertEditable(current);
    const users = await tx
      .select({ id: evaluations.id })
      .from(evaluations)
      .where(sql`${evaluations.selectedDimensionIds} @> array[${id}]::text[]`)
      .limit(5);
    if (users.length > 0) {
      throw new ApiError(
        "template_in_use",
        `This template is used by evaluation${users.length > 1 ? "s" : ""} ${users.map((u) => u.id).join(", ")}; remove it from them before deleting it.`,
        { details: { evaluationIds: users.map((u) => u.id) } },
      );
    }
    await recordTombstone(tx, templates, "template", [id]);
    await tx.delete(templates).where(eq(templates.id, id));
    return { id, deleted: true as const };
  });
}

export async function duplicateTemplate(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  input: { teamId?: string; name?: string },
): Promise<Template> {
  const source = await loadVisibleTemplate(ctx.db, actor, id);
  const { team } = await resolveTargetTeam(
    ctx.db,
    actor,
    input.teamId ?? (source.isSystem ? undefined : (source.teamId ?? undefined)),
  );
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(templates)
      .values({
        id: newId("template"),
        teamId: team.id,
        isSystem: false,
        name: input.name ?? `${source.name} (copy)`,
        version: 1,
        body: {
          ...source.body,
          ...(source.isSystem ? { sourceBuiltInId: source.id } : {}),
        },
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await writeVersion(tx, row!, "duplicated", `Duplicated from ${source.id} version ${source.version}`, now);
    return toTemplate(row!);
  });
}

export async function listTemplateVersions(ctx: CoreContext, actor: Actor, id: string, query: PageQuery) {
  await loadVisibleTemplate(ctx.db, actor, id);
  const page = await paginate<TemplateVersionRow>({
    db: ctx.db,
    table: templateVersions,
    resource: "template_version",
    where: eq(templateVersions.templateId, id),
    query,
  });
  return { ...page, data: page.data.map(toTemplateVersion) };
}

/** Restores an earlier version's content as a new version; history is never rewritten. */
export async function revertTemplate(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  versionId: string,
): Promise<Template> {
  return ctx.db.transaction(async (tx) => {
    const current = await loadVisibleTemplate(tx, actor, id, true);
    assertEditable(current);
    const [version] = await tx
      .select()
      .from(templateVersions)
      .where(and(eq(templateVersions.id, versionId), eq(templateVersions.templateId, id)))
      .limit(1);
    if (!version) {
      throw new ApiError("template_version_not_found", `No version ${versionId} of template ${id}.`, {
        param: "versionId",
      });
    }
    const body = bodyWithDefaults(version.snapshot.body as Partial<StoredBody>);
    return applyNewVersion(
      tx,
      ctx,
      current,
      version.snapshot.name,
      body,
      () => `Reverted to version ${version.version}`,
    );
  });
}

/** Ids among `ids` that the actor cannot see as templates, for validating an evaluation's selection. */
/**
 * The ids that name no template an evaluation of `teamId` may use: only the team's own templates and system ones.
 * A user in two teams sees both teams' templates, but one team's evaluation must not carry the other's (its
 * guidelines would show to the first team's raters, and its owner could no longer delete it).
 */
export async function unknownTemplateIds(db: DbOrTx, teamId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: templates.id })
    .from(templates)
    .where(and(inArray(templates.id, ids), or(eq(templates.isSystem, true), eq(templates.teamId, teamId))));
  const found = new Set(rows.map((r) => r.id));
  return ids.filter((i) => !found.has(i));
}
