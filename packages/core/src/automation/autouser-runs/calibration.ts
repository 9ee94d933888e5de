import type { CalibrationStatus } from "@rubricon/contracts";
import {
  autouserCalibrations,
  autouserRubrics,
  autouserRuns,
  autouserRunTurns,
  autousers,
  comparisons,
  type DbOrTx,
  newId,
  ratings,
  teamMembers,
} from "@rubricon/db";
import { and, desc, eq, isNull, ne, sql } from "drizzle-orm";
import {
  appendRunEvent,
  assertAutouserQuota,
  bootstrapAlpha,
  krippendorffAlpha,
  loadVisibleEvaluation,
  mean,
  mulberry32,
  toAutouserRun,
} from "../../evaluation";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError } from "../../kernel";
import { emitEvent } from "../../platform";

type CalibrationRow = typeof autouserCalibrations.$inferSelect;

function autouserNotFound(id: string) {
  return ApiError.notFound("autouser_not_found", `No such autouser: ${id}.`);
}

/** A team calibrates its own autousers: system personas are calibrated by the operator. */
export async function loadOwnAutouser(db: DbOrTx, actor: Actor, autouserId: string, teamId?: string) {
  const [row] = await db.select().from(autousers).where(eq(autousers.id, autouserId)).limit(1);
  if (!row || row.teamId === null) throw autouserNotFound(autouserId);
  const teamId0 = row.teamId;
  const allowed = actor.boundTeamId
    ? teamId0 === actor.boundTeamId
    : (
        await db
          .select({ userId: teamMembers.userId })
          .from(teamMembers)
          .where(and(eq(teamMembers.teamId, teamId0), eq(teamMembers.userId, actor.userId)))
          .limit(1)
      ).length > 0;
  if (!allowed || (teamId !== undefined && row.teamId !== teamId)) throw autouserNotFound(autouserId);
  return row;
}

/**
 * `POST /autousers/{id}/calibration`: runs the autouser on up to `sampleSize` comparisons of the evaluation that
 * humans rated (those with the most human ratings first); its verdicts are kept on the run, not as ratings.
 */
export async function startCalibration(
  ctx: CoreContext,
  actor: Actor,
  input: { id: string; rubricId: string; evaluationId: string; sampleSize: number },
) {
  const evaluation = await loadVisibleEvaluation(ctx.db, actor, input.evaluationId);
  const autouser = await loadOwnAutouser(ctx.db, actor, input.id);
  if (autouser.teamId !== evaluation.teamId) {
    throw ApiError.invalid("evaluationId", "Calibrate on an evaluation of the autouser's own team.");
  }
  const [rubric] = await ctx.db
    .select()
    .from(autouserRubrics)
    .where(and(eq(autouserRubrics.id, input.rubricId), eq(autouserRubrics.autouserId, autouser.id)))
    .limit(1);
  if (!rubric) {
    throw new ApiError(
      "resource_not_found",
      `No such rubric of autouser ${autouser.id}: ${input.rubricId}.`,
      {
        param: "rubricId",
      },
    );
  }
  const rated = await ctx.db
    .select({ id: comparisons.id, n: sql<number>`count(${ratings.id})`.mapWith(Number) })
    .from(comparisons)
    .innerJoin(
      ratings,
      and(
        eq(ratings.comparisonId, comparisons.id),
        ne(ratings.raterType, "autouser"),
        isNull(ratings.skipReason),
      ),
    )
    .where(eq(comparisons.evaluationId, evaluation.id))
    .groupBy(comparisons.id)
    .orderBy(desc(sql`count(${ratings.id})`), comparisons.id)
    .limit(input.sampleSize);
  if (rated.length === 0) {
    throw ApiError.invalid(
      "evaluationId",
      `No comparison of evaluation ${evaluation.id} has a human rating yet.`,
    );
  }
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    await assertAutouserQuota(ctx, tx, evaluation.teamId, rated.length);
    const calibrationId = newId("calibration");
    const [calibration] = await tx
      .insert(autouserCalibrations)
      .values({
        id: calibrationId,
        teamId: evaluation.teamId,
        autouserId: autouser.id,
        rubricId: rubric.id,
        rubricVersion: rubric.version,
        evaluationId: evaluation.id,
        sampleSize: input.sampleSize,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await tx
      .update(autousers)
      .set({ calibrationStatus: "calibrating", updatedAt: now })
      .where(and(eq(autousers.id, autouser.id), ne(autousers.calibrationStatus, "frozen")));
    const [run] = await tx
      .insert(autouserRuns)
      .values({
        id: newId("autouserRun"),
        teamId: evaluation.teamId,
        evaluationId: evaluation.id,
        autouserId: autouser.id,
        autouserType: "team",
        purpose: "calibration",
        calibrationId,
        comparisonIds: rated.map((c) => c.id),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await appendRunEvent(tx, evaluation.id, run!.id, "queued", { run: toAutouserRun(run!) }, now);
    return toCalibration(calibration!, run!);
  });
}

function toCalibration(
  row: CalibrationRow,
  run: typeof autouserRuns.$inferSelect | undefined,
): CalibrationStatus {
  return {
    id: row.id,
    object: "calibration" as const,
    autouserId: row.autouserId,
    rubricId: row.rubricId,
    rubricVersion: row.rubricVersion,
    evaluationId: row.evaluationId,
    sampleSize: row.sampleSize,
    status: row.status,
    runId: run?.id ?? null,
    runStatus: run?.status ?? null,
    progress: {
      comparisons: run?.comparisonIds.length ?? 0,
      rated: run?.ratingsCreated ?? 0,
    },
    figures: row.figures as CalibrationStatus["figures"],
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export interface Pair {
  comparisonId: string;
  dimension: string;
  autouser: number;
  humans: number;
}

/** Mean of resampled means, 95% percentile interval, comparisons resampled with a fixed seed. */
function bootstrapMeanInterval(values: number[], samples = 1000): { lower: number; upper: number } | null {
  if (values.length < 2) return null;
  const random = mulberry32(1);
  const means: number[] = [];
  for (let s = 0; s < samples; s++) {
    let sum = 0;
    for (let i = 0; i < values.length; i++) sum += values[Math.floor(random() * values.length)]!;
    means.push(sum / values.length);
  }
  means.sort((a, b) => a - b);
  return { lower: means[Math.floor(0.025 * samples)]!, upper: means[Math.ceil(0.975 * samples) - 1]! };
}

/**
 * The calibration run's verdicts paired with the human consensus (mean human rating) of the same comparison and
 * template: one pair per comparison × template that both rated.
 */
export async function loadCalibrationPairs(db: DbOrTx, evaluationId: string, runId: string): Promise<Pair[]> {
  const verdicts = await db
    .select({ comparisonId: autouserRunTurns.comparisonId, action: autouserRunTurns.action })
    .from(autouserRunTurns)
    .where(and(eq(autouserRunTurns.runId, runId), sql`${autouserRunTurns.action}->>'type' = 'verdict'`));
  const human = await db
    .select({ comparisonId: ratings.comparisonId, dimensionRatings: ratings.dimensionRatings })
    .from(ratings)
    .where(
      and(
        eq(ratings.evaluationId, evaluationId),
        ne(ratings.raterType, "autouser"),
        isNull(ratings.skipReason),
      ),
    );
  const humanBy = new Map<string, number[]>();
  for (const r of human) {
    for (const [dim, value] of Object.entries(r.dimensionRatings)) {
      const key = `${r.comparisonId}\u0000${dim}`;
      humanBy.set(key, [...(humanBy.get(key) ?? []), value]);
    }
  }
  const pairs: Pair[] = [];
  for (const v of verdicts) {
    const given = (v.action as { ratings?: Record<string, number> }).ratings ?? {};
    for (const [dim, value] of Object.entries(given)) {
      const values = humanBy.get(`${v.comparisonId}\u0000${dim}`);
      if (values?.length)
        pairs.push({ comparisonId: v.comparisonId!, dimension: dim, autouser: value, humans: mean(values)! });
    }
  }
  return pairs;
}

/**
 * Agreement of the autouser's verdicts with the human consensus (the mean human rating) of each comparison:
 * Krippendorff's alpha (interval) over comparison × template units, and the autouser's mean bias per template,
 * both with 95% bootstrap intervals.
 */
async function measure(db: DbOrTx, calibration: CalibrationRow, runId: string) {
  const pairs = await loadCalibrationPairs(db, calibration.evaluationId, runId);
  const units = pairs.map((p) => [p.autouser, p.humans]);
  const alpha = units.length > 0 ? krippendorffAlpha(units, "interval") : null;
  const interval = units.length > 1 && alpha?.alpha !== null ? bootstrapAlpha(units, "interval") : null;
  const bias: Record<
    string,
    { mean: number; ci95: { lower: number; upper: number } | null; comparisons: number }
  > = {};
  for (const dim of new Set(pairs.map((p) => p.dimension))) {
    const diffs = pairs.filter((p) => p.dimension === dim).map((p) => p.autouser - p.humans);
    bias[dim] = { mean: mean(diffs)!, ci95: bootstrapMeanInterval(diffs), comparisons: diffs.length };
  }
  return {
    metric: "interval",
    krippendorffAlpha: alpha?.alpha ?? null,
    alphaCi95: interval ? { lower: interval.lower, upper: interval.upper } : null,
    alphaUndefinedReason: alpha?.undefinedReason ?? (alpha ? null : "no_pairable_values"),
    comparisons: new Set(pairs.map((p) => p.comparisonId)).size,
    bias,
  };
}

/** `GET /autousers/{id}/calibration`: the latest calibration, its progress, and its figures once measured. */
export async function getCalibration(ctx: CoreContext, actor: Actor, autouserId: string) {
  const autouser = await loadOwnAutouser(ctx.db, actor, autouserId);
  const [row] = await ctx.db
    .select()
    .from(autouserCalibrations)
    .where(eq(autouserCalibrations.autouserId, autouser.id))
    .orderBy(desc(autouserCalibrations.createdAt), desc(autouserCalibrations.id))
    .limit(1);
  if (!row)
    throw ApiError.notFound("resource_not_found", `Autouser ${autouserId} has not been calibrated yet.`);
  const [run] = await ctx.db
    .select()
    .from(autouserRuns)
    .where(eq(autouserRuns.calibrationId, row.id))
    .limit(1);
  if (row.status !== "running" || !run) return toCalibration(row, run);
  if (run.status === "completed" || run.status === "failed" || run.status === "cancelled") {
    const now = ctx.clock.now();
    const settled = await ctx.db.transaction(async (tx) => {
      const figures = run.status === "completed" ? await measure(tx, row, run.id) : null;
      const [updated] = await tx
        .update(autouserCalibrations)
        .set({
          status: run.status === "completed" ? "completed" : "failed",
          figures,
          error: run.status === "completed" ? null : (run.error ?? `The calibration run was ${run.status}.`),
          updatedAt: now,
        })
        .where(and(eq(autouserCalibrations.id, row.id), eq(autouserCalibrations.status, "running")))
        .returning();
      if (updated) {
        await tx
          .update(autousers)
          .set({
            calibrationStatus: run.status === "completed" ? "calibrated" : "uncalibrated",
            updatedAt: now,
          })
          .where(and(eq(autousers.id, autouser.id), eq(autousers.calibrationStatus, "calibrating")));
      }
      return updated;
    });
    if (settled) return toCalibration(settled, run);
    return getCalibration(ctx, actor, autouserId);
  }
  return toCalibration(row, run);
}

/**
 * `POST /autousers/{id}/calibration/freeze`: freezes the rubric the latest completed calibration measured, with
 * its alpha, and makes it the autouser's active rubric. A frozen rubric never changes; a new version replaces it.
 */
export async function freezeCalibration(ctx: CoreContext, actor: Actor, autouserId: string) {
  const current = await getCalibration(ctx, actor, autouserId);
  if (current.status !== "completed") {
    throw new ApiError(
      "parameter_invalid",
      current.status === "running"
        ? "The calibration is still running; freeze once its figures are in."
        : "The latest calibration failed; calibrate again before freezing.",
    );
  }
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [rubric] = await tx
      .select()
      .from(autouserRubrics)
      .where(eq(autouserRubrics.id, current.rubricId))
      .limit(1)
      .for("update");
    if (!rubric)
      throw ApiError.notFound("resource_not_found", `The calibrated rubric ${current.rubricId} is gone.`);
    if (rubric.isFrozen) {
      throw new ApiError(
        "parameter_invalid",
        `Rubric ${rubric.id} (version ${rubric.version}) is already frozen; a change needs a new version.`,
      );
    }
    if (rubric.version !== current.rubricVersion) {
      throw new ApiError(
        "parameter_invalid",
        `Rubric ${rubric.id} changed since it was calibrated (version ${current.rubricVersion}); calibrate it again.`,
      );
    }
    const alpha =
      (current.figures as { krippendorffAlpha?: number | null } | null)?.krippendorffAlpha ?? null;
    const [frozen] = await tx
      .update(autouserRubrics)
      .set({ isFrozen: true, frozenAt: now, krippendorffAlpha: alpha, updatedAt: now })
      .where(eq(autouserRubrics.id, rubric.id))
      .returning();
    const [autouser] = await tx
      .update(autousers)
      .set({ calibrationStatus: "frozen", activeRubricId: rubric.id, updatedAt: now })
      .where(eq(autousers.id, autouserId))
      .returning();
    const result = {
      object: "calibration_freeze" as const,
      autouser: {
        id: autouser!.id,
        object: "autouser" as const,
        name: autouser!.name,
        teamId: autouser!.teamId,
        calibrationStatus: autouser!.calibrationStatus,
        activeRubricId: autouser!.activeRubricId,
      },
      rubric: {
        id: frozen!.id,
        autouserId: frozen!.autouserId,
        dimensionId: frozen!.dimensionId,
        name: frozen!.name,
        version: frozen!.version,
        isFrozen: frozen!.isFrozen,
        krippendorffAlpha: frozen!.krippendorffAlpha,
        frozenAt: frozen!.frozenAt!.toISOString(),
      },
    };
    await emitEvent(tx, ctx, {
      type: "calibration.frozen",
      teamId: autouser!.teamId!,
      object: { id: autouser!.id, autouser: result.autouser, rubric: result.rubric },
    });
    return result;
  });
}
