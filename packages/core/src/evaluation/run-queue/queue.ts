import type { RunAutousersInput } from "@rubricon/contracts";
import { MAX_RUNS_PER_REQUEST } from "@rubricon/contracts";
import { autouserRuns, autousers, comparisons, type DbOrTx, evaluations, newId } from "@rubricon/db";
import { and, asc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import type { CoreContext } from "../../kernel";
import { ApiError } from "../../kernel";
import { billingPeriod, quotaRemaining } from "../../platform";
import { emitStatusChange, serializeEvaluation } from "../evaluations/lifecycle";
import type { EvaluationRow } from "../evaluations/serialize";
import { appendRunEvent } from "./log";
import { type RunRow, toAutouserRun } from "./serialize";

export const ACTIVE_RUN_STATUSES = ["queued", "running"] as const;

export interface QueueRequest {
  autousers: { autouserId: string; agentCount: number }[];
  comparisonIds?: string[];
  replaceRunId?: string;
  /** Names the body field an unknown autouser is reported under. */
  param: string;
}

/** Ratings the team's queued and running evaluation runs will make: held against the quota until they end. */
async function reservedRatings(tx: DbOrTx, teamId: string): Promise<number> {
  const [row] = await tx
    .select({
      n: sql<number>`coalesce(sum(greatest(cardinality(${autouserRuns.comparisonIds}) - ${autouserRuns.ratingsCreated}, 0)), 0)`.mapWith(
        Number,
      ),
    })
    .from(autouserRuns)
    .where(
      and(
        eq(autouserRuns.teamId, teamId),
        eq(autouserRuns.purpose, "evaluation"),
        inArray(autouserRuns.status, [...ACTIVE_RUN_STATUSES]),
      ),
    );
  return row?.n ?? 0;
}

/**
 * Refuses work the team's autouser ratings left this month cannot cover, counting what its unfinished runs will
 * still spend. Quota is spent only when a run completes; this keeps concurrent requests from planning past it.
 * The team's usage row is locked for the check, so two requests cannot both pass on the same remainder.
 */
export async function assertAutouserQuota(ctx: CoreContext, tx: DbOrTx, teamId: string, planned: number) {
  const now = ctx.clock.now();
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`autouser_quota:${teamId}`}))`);
  const remaining = await quotaRemaining(tx, teamId, "autouser_ratings_mo", now);
  if (remaining === null) return;
  const reserved = await reservedRatings(tx, teamId);
  if (planned > remaining - reserved) {
    const left = Math.max(0, remaining - reserved);
    throw new ApiError(
      "quota_exceeded",
      `These runs would make ${planned} autouser ratings; this team has ${left} left this billing period` +
        `${reserved > 0 ? ` (${reserved} more are held by runs still in progress)` : ""}. The quota renews on ` +
        `${billingPeriod(now).end.toISOString()}. Upgrade the plan for more.`,
      { details: { metric: "autouser_ratings_mo", planned, remaining: left } },
    );
  }
}

/** The autousers a team may run: its own and the system personas. Unknown ids are one 404 naming the field. */
export async function loadRunnableAutousers(tx: DbOrTx, teamId: string, ids: string[], param: string) {
  const unique = [...new Set(ids)];
  const found = await tx
    .select({ id: autousers.id, isSystem: autousers.isSystem, teamId: autousers.teamId })
    .from(autousers)
    .where(
      and(
        inArray(autousers.id, unique),
        or(eq(autousers.teamId, teamId), and(isNull(autousers.teamId), eq(autousers.isSystem, true))),
      ),
    );
  const byId = new Map(found.map((a) => [a.id, a]));
  const missing = unique.find((id) => !byId.has(id));
  if (missing) {
    throw new ApiError("autouser_not_found", `No such autouser: ${missing}.`, { param });
  }
  return byId;
}

async function comparisonsToRate(
  tx: DbOrTx,
  row: EvaluationRow,
  ids: string[] | undefined,
): Promise<string[]> {
  const all = await tx
    .select({ id: comparisons.id })
    .from(comparisons)
    .where(eq(comparisons.evaluationId, row.id))
    .orderBy(asc(comparisons.position), asc(comparisons.id));
  if (!ids) return all.map((c) => c.id);
  const known = new Set(all.map((c) => c.id));
  const wanted = [...new Set(ids)];
  const unknown = wanted.find((id) => !known.has(id));
  if (unknown) {
    throw ApiError.invalid("comparisonIds", `No such comparison in evaluation ${row.id}: ${unknown}.`);
  }
  return all.map((c) => c.id).filter((id) => wanted.includes(id));
}

/**
 * Queues runs for an evaluation (locked by the caller, Draft or Running) in the caller's transaction: one run per
 * autouser and agent, each rating every chosen comparison once. A Draft evaluation moves to Running.
 */
export async function queueRuns(
  tx: DbOrTx,
  ctx: CoreContext,
  row: EvaluationRow,
  request: QueueRequest,
): Promise<{ runs: RunRow[]; evaluation: EvaluationRow }> {
  if (row.status !== "Draft" && row.status !== "Running") {
    throw new ApiError(
      "evaluation_not_running",
      `Evaluation ${row.id} has ${row.status === "Ended" ? "ended" : "been archived"}; autousers can no longer rate it.`,
    );
  }
  const totalRuns = request.autousers.reduce((n, a) => n + a.agentCount, 0);
  if (totalRuns > MAX_RUNS_PER_REQUEST) {
    throw ApiError.invalid(
      "agentCount",
      `That is ${totalRuns} runs; at most ${MAX_RUNS_PER_REQUEST} are queued at once (autousers × agents).`,
    );
  }
  const found = await loadRunnableAutousers(
    tx,
    row.teamId,
    request.autousers.map((a) => a.autouserId),
    request.param,
  );
  const comparisonIds = await comparisonsToRate(tx, row, request.comparisonIds);
  if (comparisonIds.length === 0) {
    throw ApiError.invalid("comparisonIds", `Evaluation ${row.id} has no comparisons to rate.`);
  }
  const now = ctx.clock.now();
  if (request.replaceRunId) {
    const [replaced] = await tx
      .select()
      .from(autouserRuns)
      .where(and(eq(autouserRuns.id, request.replaceRunId), eq(autouserRuns.evaluationId, row.id)))
      .limit(1)
      .for("update");
    if (!replaced) {
      throw new ApiError(
        "autouser_run_not_found",
        `No such run in evaluation ${row.id}: ${request.replaceRunId}.`,
        {
          param: "replaceRunId",
        },
      );
    }
    if (replaced.status === "queued" || replaced.status === "running") {
      await cancelRunRows(tx, [replaced], now, "Replaced by a new run.");
    }
  }
  await assertAutouserQuota(ctx, tx, row.teamId, totalRuns * comparisonIds.length);

  let evaluation = row;
  if (row.status === "Draft") {
    const [moved] = await tx
      .update(evaluations)
      .set({ status: "Running", updatedAt: now })
      .where(eq(evaluations.id, row.id))
      .returning();
    evaluation = moved!;
    await emitStatusChange(tx, ctx, evaluation, await serializeEvaluation(tx, ctx, evaluation), row.status);
  }

  const values = request.autousers.flatMap((a) =>
    Array.from({ length: a.agentCount }, (_, agentIndex) => ({
      id: newId("autouserRun"),
      teamId: row.teamId,
      evaluationId: row.id,
      autouserId: a.autouserId,
      autouserType: found.get(a.autouserId)!.isSystem ? ("system" as const) : ("team" as const),
      agentIndex,
      comparisonIds,
      replacesRunId: request.replaceRunId ?? null,
      createdAt: now,
      updatedAt: now,
    })),
  );
  const runs = await tx.insert(autouserRuns).values(values).returning();
  for (const run of runs) {
    await appendRunEvent(tx, row.id, run.id, "queued", { run: toAutouserRun(run) }, now);
  }
  return { runs, evaluation };
}

/** Marks runs cancelled in the caller's transaction; a worker holding one sees it at its next heartbeat. */
export async function cancelRunRows(
  tx: DbOrTx,
  rows: RunRow[],
  now: Date,
  reason: string,
): Promise<RunRow[]> {
  const ids = rows.filter((r) => r.status === "queued" || r.status === "running").map((r) => r.id);
  if (ids.length === 0) return [];
  const cancelled = await tx
    .update(autouserRuns)
    .set({
      status: "cancelled",
      error: reason,
      completedAt: now,
      updatedAt: now,
      leaseToken: null,
      leaseUntil: null,
    })
    .where(and(inArray(autouserRuns.id, ids), inArray(autouserRuns.status, [...ACTIVE_RUN_STATUSES])))
    .returning();
  for (const run of cancelled) {
    await appendRunEvent(tx, run.evaluationId, run.id, "cancelled", { run: toAutouserRun(run) }, now);
  }
  return cancelled;
}

export function runsForSelected(row: EvaluationRow): QueueRequest | null {
  if (row.evaluationMethod === "manual" || row.selectedAutousers.length === 0) return null;
  return { autousers: row.selectedAutousers, param: "selectedAutousers" };
}

export function queueRequestOf(input: RunAutousersInput): QueueRequest {
  return {
    autousers: input.autouserIds.map((autouserId) => ({ autouserId, agentCount: input.agentCount })),
    comparisonIds: input.comparisonIds,
    replaceRunId: input.replaceRunId,
    param: "autouserIds",
  };
}

/** Cancels every queued and running run of an evaluation (it ended or was archived), in the caller's transaction. */
export async function cancelActiveRuns(tx: DbOrTx, ctx: CoreContext, evaluationId: string, reason: string) {
  const rows = await tx
    .select()
    .from(autouserRuns)
    .where(
      and(
        eq(autouserRuns.evaluationId, evaluationId),
        inArray(autouserRuns.status, [...ACTIVE_RUN_STATUSES]),
      ),
    )
    .for("no key update");
  return cancelRunRows(tx, rows, ctx.clock.now(), reason);
}
