import type { EvaluationTransfer } from "@rubricon/contracts";
import {
  accessRequests,
  autouserRuns,
  autousers,
  comparisons,
  evaluationShares,
  evaluations,
  invites,
  ratings,
} from "@rubricon/db";
import { and, eq, inArray, sql } from "drizzle-orm";
import { findMembership, type Membership } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError } from "../../kernel";
import { emitEvent, recordUsage } from "../../platform";
import { moveEvaluationFiles } from "../files/transfer-files";
import { ACTIVE_RUN_STATUSES } from "../run-queue/queue";
import { loadVisibleEvaluation } from "./access";
import { serializeEvaluation } from "./lifecycle";
import { toEvaluationEventObject } from "./serialize";

const ADMIN_ROLES: Membership["role"][] = ["owner", "admin"];

/**
 * Moves an evaluation with everything in it to another team, in one transaction: either all of it moves or none
 * of it. The caller must be an owner or admin of both teams (docs/decisions/evaluations.md, "Moving an evaluation
 * to another team"). The move counts as one evaluation of the target team's monthly quota; the old team gets
 * `evaluation.transferred_out`, the new one `evaluation.transferred_in`. The share token does not change, so share
 * links keep working.
 */
export async function transferEvaluation(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  targetTeamId: string,
): Promise<EvaluationTransfer> {
  return ctx.db.transaction(async (tx) => {
    const row = await loadVisibleEvaluation(tx, actor, id, { forUpdate: true, need: "OWNER" });
    const source = await findMembership(tx, actor, row.teamId);
    if (!source || !ADMIN_ROLES.includes(source.role)) {
      throw new ApiError(
        "insufficient_role",
        `Only an owner or admin of team ${row.teamId} can move its evaluations to another team.`,
      );
    }
    if (targetTeamId === row.teamId) {
      throw new ApiError(
        "evaluation_same_team",
        `Evaluation ${id} already belongs to team ${targetTeamId}.`,
        {
          param: "teamId",
        },
      );
    }
    const target = await findMembership(tx, actor, targetTeamId);
    if (!target) {
      throw new ApiError("team_not_found", `No such team: ${targetTeamId}.`, { param: "teamId" });
    }
    if (!ADMIN_ROLES.includes(target.role)) {
      throw new ApiError(
        "insufficient_role",
        `You are a ${target.role} of team ${targetTeamId}; only its owners and admins can move evaluations into it.`,
        { param: "teamId" },
      );
    }
    const active = await tx
      .select({ id: autouserRuns.id })
      .from(autouserRuns)
      .where(and(eq(autouserRuns.evaluationId, id), inArray(autouserRuns.status, [...ACTIVE_RUN_STATUSES])));
    if (active.length > 0) {
      throw new ApiError(
        "evaluation_runs_active",
        `Evaluation ${id} has ${active.length} autouser run(s) queued or running; stop them ` +
          `(POST /evaluations/${id}/stop-autousers) or wait for them to finish, then move it.`,
        { details: { activeRunIds: active.map((r) => r.id) } },
      );
    }
    await recordUsage(tx, target.team, "evals_mo", ctx.clock.now(), 1, { policy: ctx.limits });

    // Team autousers of the old team cannot run in the new one; system autousers and the target's own stay.
    const selectedIds = row.selectedAutousers.map((a) => a.autouserId);
    const runnable =
      selectedIds.length === 0
        ? new Set<string>()
        : new Set(
            (
              await tx
                .select({ id: autousers.id })
                .from(autousers)
                .where(
                  and(
                    inArray(autousers.id, selectedIds),
                    sql`(${autousers.isSystem} or ${autousers.teamId} = ${targetTeamId})`,
                  ),
                )
            ).map((a) => a.id),
          );
    const dropped = selectedIds.filter((a) => !runnable.has(a));

    const now = ctx.clock.now();
    const [moved] = await tx
      .update(evaluations)
      .set({
        teamId: targetTeamId,
        selectedAutousers: row.selectedAutousers.filter((a) => runnable.has(a.autouserId)),
        updatedAt: now,
      })
      .where(eq(evaluations.id, id))
      .returning();
    const movedRatings = await tx
      .update(ratings)
      .set({ teamId: targetTeamId })
      .where(eq(ratings.evaluationId, id))
      .returning({ id: ratings.id });
    const movedFiles = await moveEvaluationFiles(tx, {
      evaluationId: id,
      from: row.teamId,
      to: targetTeamId,
      now,
    });
    const movedRuns = await tx
      .update(autouserRuns)
      .set({ teamId: targetTeamId })
      .where(eq(autouserRuns.evaluationId, id))
      .returning({ id: autouserRuns.id });
    await tx
      .update(invites)
      .set({ teamId: targetTeamId, updatedAt: now })
      .where(and(eq(invites.kind, "evaluation"), eq(invites.evaluationId, id)));
    await tx
      .update(accessRequests)
      .set({ teamId: targetTeamId, updatedAt: now })
      .where(eq(accessRequests.evaluationId, id));
    const [counts] = await tx
      .select({
        comparisons: sql<number>`(select count(*)::int from ${comparisons} where ${comparisons.evaluationId} = ${id})`,
        shares: sql<number>`(select count(*)::int from ${evaluationShares} where ${evaluationShares.evaluationId} = ${id})`,
      })
      .from(sql`(select 1) as one`);

    const evaluation = await serializeEvaluation(tx, ctx, moved!);
    const object = {
      ...toEvaluationEventObject(evaluation),
      previous_team_id: row.teamId,
    };
    await emitEvent(tx, ctx, { type: "evaluation.transferred_out", teamId: row.teamId, object });
    await emitEvent(tx, ctx, { type: "evaluation.transferred_in", teamId: targetTeamId, object });
    return {
      object: "evaluation_transfer" as const,
      evaluation,
      fromTeamId: row.teamId,
      toTeamId: targetTeamId,
      moved: {
        comparisons: counts?.comparisons ?? 0,
        ratings: movedRatings.length,
        files: movedFiles,
        runs: movedRuns.length,
        shares: counts?.shares ?? 0,
      },
      droppedAutouserIds: dropped,
    };
  });
}
