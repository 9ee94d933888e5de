import type { EvaluationDraftInput } from "@rubricon/contracts";
import { comparisons, type DbOrTx, evaluations, newId, type StimulusRow } from "@rubricon/db";
import { asc, eq } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, hashPassword, recordTombstone } from "../../kernel";
import { linkFilesToEvaluation, resolveStimulusFiles } from "../files/stimulus-files";
import { loadVisibleEvaluation } from "./access";
import { type ComparisonRow, stimulusFor, toComparison } from "./comparisons";
import { applyEvaluationUpdate } from "./evaluations";
import { serializeEvaluation } from "./lifecycle";
import type { EvaluationRow } from "./serialize";

type DraftComparison = NonNullable<EvaluationDraftInput["comparisons"]>[number];

/** Names a field of one list item, so `url` of the third item is `comparisons[2].url`. */
function underItem(index: number, run: () => StimulusRow): StimulusRow {
  try {
    return run();
  } catch (error) {
    if (error instanceof ApiError && error.param) {
      throw new ApiError(error.code, error.message, { param: `comparisons[${index}].${error.param}` });
    }
    throw error;
  }
}

/**
 * Makes the evaluation's comparisons the given list, in its order: listed ids are kept (and changed), new items
 * added, the rest removed. Every item is checked before anything is written.
 */
async function replaceComparisons(
  tx: DbOrTx,
  ctx: CoreContext,
  evaluation: EvaluationRow,
  items: DraftComparison[],
): Promise<void> {
  const existing = await tx.select().from(comparisons).where(eq(comparisons.evaluationId, evaluation.id));
  const byId = new Map(existing.map((c) => [c.id, c]));
  const seen = new Set<string>();
  const planned = items.map((item, index) => {
    const { id, name, ...stimulusFields } = item;
    const current = id === undefined ? undefined : byId.get(id);
    if (id !== undefined) {
      if (!current) {
        throw ApiError.invalid(
          `comparisons[${index}].id`,
          `Evaluation ${evaluation.id} has no comparison ${id}.`,
        );
      }
      if (seen.has(id)) {
        throw ApiError.invalid(`comparisons[${index}].id`, `Comparison ${id} is listed twice.`);
      }
      seen.add(id);
    }
    const changesStimulus = Object.keys(stimulusFields).length > 0;
    const stimulus =
      current && !changesStimulus
        ? current.stimulus
        : underItem(index, () => stimulusFor(evaluation.type, stimulusFields));
    return { index, current, name, stimulus, changesStimulus: !current || changesStimulus };
  });
  const fileIds = await resolveStimulusFiles(
    tx,
    evaluation.teamId,
    planned
      .filter((p) => p.changesStimulus)
      .map((p) => ({ stimulus: p.stimulus, paramPrefix: `comparisons[${p.index}].` })),
  );
  await linkFilesToEvaluation(tx, evaluation.id, fileIds);

  const removed = existing.filter((c) => !seen.has(c.id)).map((c) => c.id);
  if (removed.length > 0) {
    await recordTombstone(tx, comparisons, "comparison", removed);
    for (const id of removed) await tx.delete(comparisons).where(eq(comparisons.id, id));
  }
  const now = ctx.clock.now();
  for (const [position, p] of planned.entries()) {
    if (p.current) {
      const changed =
        p.changesStimulus ||
        p.current.position !== position ||
        (p.name !== undefined && p.name !== p.current.name);
      if (!changed) continue;
      await tx
        .update(comparisons)
        .set({
          position,
          stimulus: p.stimulus,
          ...(p.name !== undefined ? { name: p.name } : {}),
          updatedAt: now,
        })
        .where(eq(comparisons.id, p.current.id));
    } else {
      await tx.insert(comparisons).values({
        id: newId("comparison"),
        evaluationId: evaluation.id,
        name: p.name ?? null,
        position,
        stimulus: p.stimulus,
        createdAt: now,
        updatedAt: now,
      });
    }
  }
}

/**
 * Edits a Draft evaluation's fields and its comparisons in one transaction: either all of it is saved or, on the
 * first refusal, none of it. Any other status is 409 `evaluation_not_draft`; its status moves with PATCH.
 */
export async function editDraftEvaluation(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  input: EvaluationDraftInput,
) {
  const { comparisons: items, ...fields } = input;
  const sharePasswordHash = fields.sharePassword ? await hashPassword(fields.sharePassword) : undefined;
  return ctx.db.transaction(async (tx) => {
    const row = await loadVisibleEvaluation(tx, actor, id, { forUpdate: true, need: "EDITOR" });
    if (row.status !== "Draft") {
      throw new ApiError(
        "evaluation_not_draft",
        `Evaluation ${id} is ${row.status}; only a Draft is edited this way. Change a running evaluation's fields with PATCH /evaluations/${id}.`,
        { details: { status: row.status } },
      );
    }
    if (items) await replaceComparisons(tx, ctx, row, items);
    let evaluation = await applyEvaluationUpdate(tx, ctx, actor, id, fields, sharePasswordHash);
    if (items) {
      const [touched] = await tx
        .update(evaluations)
        .set({ updatedAt: ctx.clock.now() })
        .where(eq(evaluations.id, id))
        .returning();
      evaluation = await serializeEvaluation(tx, ctx, touched!);
    }
    const list: ComparisonRow[] = await tx
      .select()
      .from(comparisons)
      .where(eq(comparisons.evaluationId, id))
      .orderBy(asc(comparisons.position));
    return { object: "evaluation_draft" as const, evaluation, comparisons: list.map(toComparison) };
  });
}
