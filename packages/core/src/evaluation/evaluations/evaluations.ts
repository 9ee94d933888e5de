import type { Evaluation, EvaluationCreateInput, EvaluationUpdateInput } from "@rubricon/contracts";
import { ESTIMATED_USD_PER_AUTOUSER_RUN } from "@rubricon/contracts";
import { type DbOrTx, evaluations, newId, type StimulusRow } from "@rubricon/db";
import { eq, sql } from "drizzle-orm";
import { assertAutousersUsable, unknownTemplateIds } from "../../catalog";
import { findMembership, resolveTargetTeam } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, hashPassword, randomToken, recordTombstone } from "../../kernel";
import { usageTerms } from "../../platform";
import { linkFilesToEvaluation, resolveStimulusFiles } from "../files/stimulus-files";
import { cancelActiveRuns, queueRuns, runsForSelected } from "../run-queue/queue";
import {
  allows,
  loadEvaluationAccess,
  loadVisibleEvaluation,
  loadVisibleEvaluationWithExtras,
  templateRefsOf,
} from "./access";
import { stimulusFor } from "./comparisons";
import { insertCreatedEvaluation } from "./create-statement";
import { emitStatusChange, serializeEvaluation } from "./lifecycle";
import { type EvaluationRow, toEvaluation, toEvaluationEventObject } from "./serialize";
import { assertTransition, isEditable } from "./status";

export { listEvaluations } from "./list";

async function assertTemplatesUsable(db: DbOrTx, teamId: string, ids: string[] | undefined): Promise<void> {
  if (!ids) return;
  const unknown = await unknownTemplateIds(db, teamId, ids);
  if (unknown.length > 0) {
    const index = ids.indexOf(unknown[0]!);
    throw ApiError.invalid(`selectedDimensionIds[${index}]`, `No such template: ${unknown[0]}.`);
  }
}

export const DEFAULT_TEMPLATE_ID = "overall";
export { ESTIMATED_USD_PER_AUTOUSER_RUN } from "@rubricon/contracts";

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

export async function createEvaluation(ctx: CoreContext, actor: Actor, input: EvaluationCreateInput) {
  const { team, role } = await resolveTargetTeam(ctx.db, actor, input.teamId);
  const items = comparisonInputs(input);
  await assertTemplatesUsable(ctx.db, team.id, input.selectedDimensionIds);
  await assertAutousersUsable(
    ctx.db,
    team.id,
    (input.selectedAutousers ?? []).map((a) => a.autouserId),
    { viewer: { userId: actor.userId, role } },
  );
  const prefix = input.type === "SSE" ? "designUrls" : "comparisonPairs";
  const fileIds = await resolveStimulusFiles(
    ctx.db,
    team.id,
    items.map((c, i) => ({ stimulus: c.stimulus, paramPrefix: `${prefix}[${i}].` })),
  );
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
    ratingChanges: 0,
    endedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  // Comparisons made together share one updatedAt, so lists order them by id: the largest id goes to position 0
  // and an evaluation's comparisons list in position order (docs/decisions/, "Comparison order").
  const comparisonIds = items.map(() => newId("comparison")).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  const newComparisons = items.map((c, position) => ({
    id: comparisonIds[position]!,
    name: c.name,
    position,
    stimulus: c.stimulus,
  }));
  const evaluation = toEvaluation(row, items.length, ctx.baseUrl, new Map());
  const usage = usageTerms(team, "evals_mo", now, 1, { policy: ctx.limits });
  const write = async (db: DbOrTx) => {
    evaluation.templates = await insertCreatedEvaluation(db, ctx, {
      row,
      comparisons: newComparisons,
      eventObject: toEvaluationEventObject(evaluation),
      usage,
    });
    return evaluation;
  };
  // An evaluation created Running with autousers selected starts them at once.
  const selected = row.status === "Running" ? runsForSelected(row) : null;
  // The statement is atomic on its own; only files to link or runs to queue need a transaction around it.
  if (fileIds.length === 0 && !selected) return write(ctx.db);
  return ctx.db.transaction(async (tx) => {
    await write(tx);
    await linkFilesToEvaluation(tx, row.id, fileIds);
    if (selected) await queueRuns(tx, ctx, row, selected);
    return evaluation;
  });
}

export async function getEvaluation(ctx: CoreContext, actor: Actor, id: string): Promise<Evaluation> {
  const row = await loadVisibleEvaluationWithExtras(ctx.db, actor, id);
  return toEvaluation(row, row.comparisonCount, ctx.baseUrl, templateRefsOf([row]), row.access);
}

export async function updateEvaluation(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  input: EvaluationUpdateInput,
) {
  const sharePasswordHash = input.sharePassword ? await hashPassword(input.sharePassword) : undefined;
  return ctx.db.transaction((tx) => applyEvaluationUpdate(tx, ctx, actor, id, input, sharePasswordHash));
}

/** `updateEvaluation` inside the caller's transaction, so a larger edit can change fields and more at once. */
export async function applyEvaluationUpdate(
  tx: DbOrTx,
  ctx: CoreContext,
  actor: Actor,
  id: string,
  input: EvaluationUpdateInput,
  sharePasswordHash: string | undefined,
) {
  {
    const { row: current, access } = await loadEvaluationAccess(tx, actor, id, {
      forUpdate: true,
      need: "EDITOR",
    });
    // Editors edit the content; who can see and rate it, and whether it runs or ends, stay with its owners.
    const ownerOnly =
      input.shareAccess !== undefined ||
      input.sharePassword !== undefined ||
      (input.status !== undefined && input.status !== current.status && input.status !== "Running");
    if (ownerOnly && !allows(access, "OWNER")) {
      throw ApiError.forbidden(
        "insufficient_permission",
        `Evaluation ${id} is shared with you as ${access}; changing its status or link settings needs OWNER permission.`,
        { permission: access, required: "OWNER" },
      );
    }
    await assertTemplatesUsable(tx, current.teamId, input.selectedDimensionIds);
    if (input.selectedAutousers) {
      const membership = await findMembership(tx, actor, current.teamId);
      await assertAutousersUsable(
        tx,
        current.teamId,
        input.selectedAutousers.map((a) => a.autouserId),
        {
          viewer: { userId: actor.userId, role: membership?.role ?? "member" },
          alreadyChosen: new Set(current.selectedAutousers.map((a) => a.autouserId)),
        },
      );
    }
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
    if (input.sharePassword !== undefined && shareAccess !== "PASSWORD_PROTECTED") {
      throw ApiError.invalid(
        "sharePassword",
        `\`sharePassword\` is used only with \`shareAccess: PASSWORD_PROTECTED\`; this evaluation's link is ${shareAccess}.`,
      );
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
    if (statusChanges && status === "Running") {
      const selected = runsForSelected(row!);
      if (selected) await queueRuns(tx, ctx, row!, selected);
    }
    if (statusChanges && (status === "Ended" || status === "Archived")) {
      await cancelActiveRuns(tx, ctx, id, `The evaluation was moved to ${status}.`);
    }
    return evaluation;
  }
}

export async function deleteEvaluation(ctx: CoreContext, actor: Actor, id: string) {
  return ctx.db.transaction(async (tx) => {
    await loadVisibleEvaluation(tx, actor, id, { forUpdate: true });
    await recordTombstone(tx, evaluations, "evaluation", [id]);
    await tx.delete(evaluations).where(eq(evaluations.id, id));
    return { id, deleted: true as const };
  });
}
