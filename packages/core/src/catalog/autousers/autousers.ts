import type {
  Autouser,
  AutouserCreateInput,
  AutouserDuplicateInput,
  AutouserListQuery,
  AutouserUpdateInput,
} from "@rubricon/contracts";
import { autouserRubrics, autousers, evaluations, newId, type PersonaRow } from "@rubricon/db";
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import { resolveTargetTeam } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, paginate, recordTombstone } from "../../kernel";
import { unknownTemplateIds } from "../templates/templates";
import { assertEditable, loadVisibleAutouser, viewerTeams, visibleTeamAutousers } from "./access";
import { latestRubrics } from "./rubrics";
import { type AutouserRow, completeDevice, toAutouser } from "./serialize";

export async function createAutouser(
  ctx: CoreContext,
  actor: Actor,
  input: AutouserCreateInput,
): Promise<Autouser> {
  const { team } = await resolveTargetTeam(ctx.db, actor, input.teamId);
  const now = ctx.clock.now();
  const persona: PersonaRow = {
    description: input.description,
    goals: input.goals,
    traits: input.traits,
    expertise: input.expertise,
    accessibilityNeeds: input.accessibilityNeeds,
    device: completeDevice(input.device),
  };
  const [row] = await ctx.db
    .insert(autousers)
    .values({
      id: newId("autouser"),
      teamId: team.id,
      isSystem: false,
      createdBy: actor.userId,
      name: input.name,
      role: input.role,
      systemPrompt: input.systemPrompt ?? null,
      persona,
      status: input.status,
      visibility: input.visibility,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return toAutouser(row!);
}

export async function listAutousers(ctx: CoreContext, actor: Actor, query: AutouserListQuery) {
  const { visibility, status, source, teamId, ...page } = query;
  const system = source === "team" ? undefined : eq(autousers.isSystem, true);
  const team =
    source === "system"
      ? undefined
      : visibleTeamAutousers(await viewerTeams(ctx.db, actor, teamId), actor.userId);
  const scope = system && team ? sql`(${system} or ${team})` : (system ?? team);
  const where: SQL = and(
    scope ?? sql`false`,
    visibility ? eq(autousers.visibility, visibility) : undefined,
    status ? eq(autousers.status, status) : undefined,
  )!;
  const result = await paginate<AutouserRow>({
    db: ctx.db,
    table: autousers,
    resource: "autouser",
    where,
    query: page,
  });
  return { ...result, data: result.data.map(toAutouser) };
}

export async function getAutouser(ctx: CoreContext, actor: Actor, id: string): Promise<Autouser> {
  return toAutouser(await loadVisibleAutouser(ctx.db, actor, id));
}

export async function updateAutouser(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  input: AutouserUpdateInput,
): Promise<Autouser> {
  return ctx.db.transaction(async (tx) => {
    const current = await loadVisibleAutouser(tx, actor, id, true);
    assertEditable(current);
    const { name, role, systemPrompt, status, visibility, device, ...personaFields } = input;
    const defined = Object.fromEntries(Object.entries(personaFields).filter(([, v]) => v !== undefined));
    const persona: PersonaRow = {
      ...current.persona,
      ...defined,
      device: completeDevice(device, current.persona.device),
    };
    const changes = {
      ...(name !== undefined ? { name } : {}),
      ...(role !== undefined ? { role } : {}),
      ...(systemPrompt !== undefined ? { systemPrompt } : {}),
      ...(status !== undefined ? { status } : {}),
      ...(visibility !== undefined ? { visibility } : {}),
    };
    const unchanged =
      JSON.stringify(persona) === JSON.stringify(current.persona) &&
      Object.entries(changes).every(([k, v]) => current[k as keyof AutouserRow] === v);
    if (unchanged) return toAutouser(current);
    const [row] = await tx
      .update(autousers)
      .set({ ...changes, persona, updatedAt: ctx.clock.now() })
      .where(eq(autousers.id, id))
      .returning();
    return toAutouser(row!);
  });
}

/** Evaluations that still may run an autouser: Draft or Running ones selecting it. */
async function activeEvaluationsSelecting(tx: Parameters<typeof recordTombstone>[0], id: string) {
  return tx
    .select({ id: evaluations.id })
    .from(evaluations)
    .where(
      and(
        sql`${evaluations.selectedAutousers} @> ${JSON.stringify([{ autouserId: id }])}::jsonb`,
        inArray(evaluations.status, ["Draft", "Running"]),
      ),
    )
    .limit(5);
}

export async function deleteAutouser(ctx: CoreContext, actor: Actor, id: string) {
  return ctx.db.transaction(async (tx) => {
    const current = await loadVisibleAutouser(tx, actor, id, true);
    assertEditable(current);
    const users = await activeEvaluationsSelecting(tx, id);
    if (users.length > 0) {
      const ids = users.map((u) => u.id);
      throw new ApiError(
        "autouser_in_use",
        `This autouser is selected by ${ids.length > 1 ? "evaluations" : "evaluation"} ${ids.join(", ")}, which may still run it; remove it from them or end them before deleting it.`,
        { details: { evaluationIds: ids } },
      );
    }
    await recordTombstone(tx, autousers, "autouser", [id]);
    await tx.delete(autousers).where(eq(autousers.id, id));
    return { id, deleted: true as const };
  });
}

/**
 * Copies an autouser (system ones included) into a team with the latest version of each rubric. The copy starts
 * uncalibrated: agreement measured for the source says nothing about a persona that may now be edited.
 */
export async function duplicateAutouser(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  input: AutouserDuplicateInput,
): Promise<Autouser> {
  const source = await loadVisibleAutouser(ctx.db, actor, id);
  const { team } = await resolveTargetTeam(
    ctx.db,
    actor,
    input.teamId ?? (source.isSystem ? undefined : (source.teamId ?? undefined)),
  );
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(autousers)
      .values({
        id: newId("autouser"),
        teamId: team.id,
        isSystem: false,
        createdBy: actor.userId,
        name: input.name ?? `${source.name} (copy)`,
        role: source.role,
        systemPrompt: source.systemPrompt,
        persona: source.persona,
        status: input.status ?? "draft",
        visibility: input.visibility ?? "private",
        sourceAutouserId: source.id,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    // A rubric of a template of the source's team stays behind when the copy goes to another team.
    const latest = await latestRubrics(tx, source.id);
    const foreign = new Set(
      await unknownTemplateIds(
        tx,
        team.id,
        latest.map((r) => r.dimensionId),
      ),
    );
    const rubrics = latest.filter((r) => !foreign.has(r.dimensionId));
    if (rubrics.length > 0) {
      await tx.insert(autouserRubrics).values(
        rubrics.map((r) => ({
          id: newId("rubric"),
          autouserId: row!.id,
          dimensionId: r.dimensionId,
          name: r.name,
          version: 1,
          guidance: r.guidance,
          weights: r.weights,
          createdAt: now,
          updatedAt: now,
        })),
      );
    }
    return toAutouser(row!);
  });
}
