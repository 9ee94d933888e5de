import type { Comparison, PageQuery } from "@rubricon/contracts";
import { comparisons, type DbOrTx, evaluations, newId, type StimulusRow } from "@rubricon/db";
import { and, count, eq, inArray, max } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, paginate, recordTombstone } from "../../kernel";
import { linkFilesToEvaluation, resolveStimulusFiles } from "../files/stimulus-files";
import { loadVisibleEvaluation } from "./access";
import type { EvaluationRow } from "./serialize";

export type ComparisonRow = typeof comparisons.$inferSelect;

export interface ComparisonFields {
  name?: string | null;
  url?: string;
  fileId?: string;
  stimulusType?: "URL" | "IMAGE" | "VIDEO" | "GIF";
  currentUrl?: string;
  variantUrl?: string;
  sideAFileId?: string;
  sideBFileId?: string;
}

export function toComparison(row: ComparisonRow): Comparison {
  return {
    id: row.id,
    object: "comparison",
    evaluationId: row.evaluationId,
    name: row.name,
    position: row.position,
    stimulus: row.stimulus,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Turns request fields into the stimulus an evaluation of this type needs, naming the missing field. */
export function stimulusFor(type: EvaluationRow["type"], f: ComparisonFields): StimulusRow {
  if (type === "SSE") {
    if ((f.url === undefined) === (f.fileId === undefined)) {
      throw ApiError.invalid("url", "An SSE comparison needs exactly one of `url` or `fileId`.");
    }
    return {
      kind: "single",
      url: f.url ?? null,
      fileId: f.fileId ?? null,
      stimulusType: f.stimulusType ?? "URL",
    };
  }
  if (f.currentUrl === undefined && f.sideAFileId === undefined) {
    throw ApiError.invalid("currentUrl", "An SxS comparison needs side A: `currentUrl` or `sideAFileId`.");
  }
  if (f.variantUrl === undefined && f.sideBFileId === undefined) {
    throw ApiError.invalid("variantUrl", "An SxS comparison needs side B: `variantUrl` or `sideBFileId`.");
  }
  return {
    kind: "pair",
    sideA: { url: f.currentUrl ?? null, fileId: f.sideAFileId ?? null },
    sideB: { url: f.variantUrl ?? null, fileId: f.sideBFileId ?? null },
  };
}

export async function countComparisons(db: DbOrTx, evaluationIds: string[]): Promise<Map<string, number>> {
  if (evaluationIds.length === 0) return new Map();
  const rows = await db
    .select({ id: comparisons.evaluationId, n: count() })
    .from(comparisons)
    .where(inArray(comparisons.evaluationId, evaluationIds))
    .groupBy(comparisons.evaluationId);
  return new Map(rows.map((r) => [r.id, Number(r.n)]));
}

function assertDraft(evaluation: EvaluationRow): void {
  if (evaluation.status !== "Draft") {
    throw new ApiError(
      "evaluation_not_editable",
      `Comparisons can change only while the evaluation is a Draft; this one is ${evaluation.status}.`,
    );
  }
}

export async function listComparisons(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  query: PageQuery,
) {
  await loadVisibleEvaluation(ctx.db, actor, evaluationId, { need: "VIEWER" });
  const page = await paginate<ComparisonRow>({
    db: ctx.db,
    table: comparisons,
    resource: "comparison",
    where: eq(comparisons.evaluationId, evaluationId),
    query,
  });
  const total = (await countComparisons(ctx.db, [evaluationId])).get(evaluationId) ?? 0;
  return { ...page, data: page.data.map(toComparison), totalCount: total };
}

export async function createComparison(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  input: ComparisonFields,
) {
  return ctx.db.transaction(async (tx) => {
    const evaluation = await loadVisibleEvaluation(tx, actor, evaluationId, {
      forUpdate: true,
      need: "EDITOR",
    });
    assertDraft(evaluation);
    const stimulus = stimulusFor(evaluation.type, input);
    const fileIds = await resolveStimulusFiles(tx, evaluation.teamId, [{ stimulus, paramPrefix: "" }]);
    await linkFilesToEvaluation(tx, evaluationId, fileIds);
    const [last] = await tx
      .select({ p: max(comparisons.position) })
      .from(comparisons)
      .where(eq(comparisons.evaluationId, evaluationId));
    const now = ctx.clock.now();
    const [row] = await tx
      .insert(comparisons)
      .values({
        id: newId("comparison"),
        evaluationId,
        name: input.name ?? null,
        position: (last?.p ?? -1) + 1,
        stimulus,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await tx.update(evaluations).set({ updatedAt: now }).where(eq(evaluations.id, evaluationId));
    return toComparison(row!);
  });
}

async function loadComparison(
  tx: DbOrTx,
  evaluationId: string,
  comparisonId: string,
): Promise<ComparisonRow> {
  const [row] = await tx
    .select()
    .from(comparisons)
    .where(and(eq(comparisons.id, comparisonId), eq(comparisons.evaluationId, evaluationId)))
    .limit(1);
  if (!row) throw ApiError.notFound("comparison_not_found", `No such comparison: ${comparisonId}.`);
  return row;
}

export async function getComparison(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  comparisonId: string,
) {
  await loadVisibleEvaluation(ctx.db, actor, evaluationId, { need: "VIEWER" });
  return toComparison(await loadComparison(ctx.db, evaluationId, comparisonId));
}

export async function updateComparison(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  comparisonId: string,
  input: ComparisonFields,
) {
  return ctx.db.transaction(async (tx) => {
    const evaluation = await loadVisibleEvaluation(tx, actor, evaluationId, {
      forUpdate: true,
      need: "EDITOR",
    });
    assertDraft(evaluation);
    const existing = await loadComparison(tx, evaluationId, comparisonId);
    const touchesStimulus = Object.keys(input).some((k) => k !== "name");
    const stimulus = touchesStimulus ? stimulusFor(evaluation.type, input) : null;
    if (stimulus) {
      const fileIds = await resolveStimulusFiles(tx, evaluation.teamId, [{ stimulus, paramPrefix: "" }]);
      await linkFilesToEvaluation(tx, evaluationId, fileIds);
    }
    const now = ctx.clock.now();
    const [row] = await tx
      .update(comparisons)
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(stimulus ? { stimulus } : {}),
        updatedAt: now,
      })
      .where(eq(comparisons.id, existing.id))
      .returning();
    return toComparison(row!);
  });
}

export async function deleteComparison(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  comparisonId: string,
) {
  return ctx.db.transaction(async (tx) => {
    const evaluation = await loadVisibleEvaluation(tx, actor, evaluationId, {
      forUpdate: true,
      need: "EDITOR",
    });
    assertDraft(evaluation);
    await loadComparison(tx, evaluationId, comparisonId);
    await recordTombstone(tx, comparisons, "comparison", [comparisonId]);
    await tx.delete(comparisons).where(eq(comparisons.id, comparisonId));
    await tx.update(evaluations).set({ updatedAt: ctx.clock.now() }).where(eq(evaluations.id, evaluationId));
    return { id: comparisonId, deleted: true as const };
  });
}
