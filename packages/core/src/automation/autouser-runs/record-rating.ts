import type { JudgeResult } from "@rubricon/agents";
import { SXS_PREFERENCE_MAX, SXS_PREFERENCE_MIN } from "@rubricon/contracts";
import { autouserRuns, autouserRunTurns, newId, ratings } from "@rubricon/db";
import { eq, sql } from "drizzle-orm";
import { appendRunEvent, type RunRow, toRating } from "../../evaluation";
import { emitEvent } from "../../platform";
import type { RunContext } from "./context";
import { coreContextOf, RunLost, type RunStepDeps, withLease } from "./lease";

/**
 * Stores the judge's verdict as the run's rating of the comparison. The rating's rater key is the run, so the
 * unique index allows one rating per run and comparison: a run taken over after a crash never rates twice.
 * A calibration run keeps its verdict as a turn instead, outside the evaluation's ratings.
 */
export async function recordRating(
  deps: RunStepDeps,
  run: RunRow,
  token: string,
  ctx: RunContext,
  comparisonId: string,
  judged: JudgeResult,
): Promise<void> {
  const dimensionRatings = clampRatings(ctx, judged.ratings);
  const now = deps.clock.now();
  if (run.purpose === "calibration") {
    await withLease(deps, run.id, token, async (tx) => {
      await tx
        .update(autouserRuns)
        .set({ ratingsCreated: sql`${autouserRuns.ratingsCreated} + 1`, updatedAt: now })
        .where(eq(autouserRuns.id, run.id));
      await tx.insert(autouserRunTurns).values({
        id: newId("autouserRunTurn"),
        runId: run.id,
        attempt: run.attemptCount,
        turn: 0,
        comparisonId,
        action: { type: "verdict", ratings: dimensionRatings },
        detail: judged.justification.slice(0, 2000),
        createdAt: now,
      });
    });
    deps.waker?.wake(run.evaluationId);
    return;
  }
  await withLease(
    deps,
    run.id,
    token,
    async (tx, _row, evaluation) => {
      if (evaluation?.status !== "Running") throw new RunLost("cancelled");
      const [inserted] = await tx
        .insert(ratings)
        .values({
          id: newId("rating"),
          evaluationId: run.evaluationId,
          comparisonId,
          teamId: run.teamId,
          raterType: "autouser",
          autouserId: run.autouserId,
          autouserRunId: run.id,
          rubricVersion: run.rubricVersion,
          singleRaterKey: run.id,
          dimensionRatings,
          templateVersions: Object.fromEntries(ctx.templates.map((t) => [t.id, t.version])),
          openTextResponses: {},
          factors: [],
          justification: judged.justification.slice(0, 5000),
          timeSpentSeconds: null,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing()
        .returning();
      if (!inserted) return;
      const rating = toRating(inserted);
      await emitEvent(tx, coreContextOf(deps), {
        type: "rating.created",
        teamId: run.teamId,
        object: { ...rating, rubricVersion: run.rubricVersion, judge: judged.judge, model: judged.model },
      });
      await tx
        .update(autouserRuns)
        .set({ ratingsCreated: sql`${autouserRuns.ratingsCreated} + 1`, updatedAt: now })
        .where(eq(autouserRuns.id, run.id));
      await appendRunEvent(tx, run.evaluationId, run.id, "rating", { runId: run.id, rating }, now);
    },
    // The evaluation's rating revision is bumped before the run is locked: the order every rating write uses.
    { evaluationFirst: { id: run.evaluationId, lock: "bump-revision" } },
  );
  deps.waker?.wake(run.evaluationId);
}

/** Judges answer integers in range; anything else is brought into the template's scale. */
function clampRatings(ctx: RunContext, raw: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of ctx.templates) {
    const [min, max] =
      ctx.evaluation.type === "SSE" ? [t.scaleMin, t.scaleMax] : [SXS_PREFERENCE_MIN, SXS_PREFERENCE_MAX];
    const value = raw[t.id];
    const n =
      typeof value === "number" && Number.isFinite(value) ? Math.round(value) : Math.round((min + max) / 2);
    out[t.id] = Math.min(max, Math.max(min, n));
  }
  return out;
}
