import type { AutouserRun } from "@rubricon/contracts";
import type { autouserRuns, autouserRunTurns } from "@rubricon/db";

export type RunRow = typeof autouserRuns.$inferSelect;
export type TurnRow = typeof autouserRunTurns.$inferSelect;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toAutouserRun(row: RunRow): AutouserRun {
  return {
    id: row.id,
    object: "autouser_run",
    evaluationId: row.evaluationId,
    autouserId: row.autouserId,
    autouserType: row.autouserType,
    agentIndex: row.agentIndex,
    status: row.status,
    comparisonIds: row.comparisonIds,
    plannedRatings: row.comparisonIds.length,
    ratingsCreated: row.ratingsCreated,
    attemptCount: row.attemptCount,
    credentialSource: row.credentialSource,
    model: row.model,
    rubricVersion: row.rubricVersion,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    estimatedCostUsd: row.estimatedCostUsd,
    artifactsPath: row.artifactsPath,
    error: row.error,
    replacesRunId: row.replacesRunId,
    startedAt: iso(row.startedAt),
    completedAt: iso(row.completedAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The webhook object of `autouser_run.completed` and `autouser_run.failed`: the run plus the spec's fields. */
export function toRunEventObject(row: RunRow): Record<string, unknown> & { id: string } {
  const run = toAutouserRun(row);
  return {
    ...run,
    autouserType: row.autouserType,
    ratingsCreated: row.ratingsCreated,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    estimatedCostUsd: row.estimatedCostUsd,
    credentialSource: row.credentialSource,
    artifactsPath: row.artifactsPath,
    ...(row.status === "failed" ? { error: row.error ?? "The run failed." } : {}),
  };
}

export function toTurn(row: TurnRow) {
  return {
    id: row.id,
    attempt: row.attempt,
    turn: row.turn,
    comparisonId: row.comparisonId,
    side: row.side,
    action: row.action,
    detail: row.detail,
    url: row.url,
    screenshot: row.screenshot,
    screenshotFileId: row.screenshotFileId,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    latencyMs: row.latencyMs,
    costUsd: row.costUsd,
    createdAt: row.createdAt.toISOString(),
  };
}
