import { type TurnRecord, timedPhase } from "@rubricon/agents";
import { autouserRuns, autouserRunTurns, newId } from "@rubricon/db";
import { eq, sql } from "drizzle-orm";
import { appendRunEvent, type RunRow, storeGeneratedFile, toTurn } from "../../evaluation";
import { type RunStepDeps, withLease } from "./lease";

/** Stores one turn of the agent (its screenshot as an `artifact` file first), adds its cost, renews the lease. */
export async function recordTurn(
  deps: RunStepDeps,
  run: RunRow,
  token: string,
  turn: number,
  comparisonId: string,
  record: TurnRecord,
): Promise<void> {
  let screenshot: string | null = null;
  let screenshotFileId: string | null = null;
  if (record.screenshot) {
    const name = `turn-${run.attemptCount}-${turn}.png`;
    const bytes = record.screenshot;
    screenshot = name;
    // Kept as an `artifact` file of the evaluation, in the same storage as uploads and removed with it.
    const file = await timedPhase("write.screenshot", () =>
      storeGeneratedFile(
        deps.db,
        deps.storage,
        {
          teamId: run.teamId,
          evaluationId: run.evaluationId,
          filename: name,
          contentType: "image/png",
          bytes,
          kind: "artifact",
        },
        deps.clock,
      ),
    );
    screenshotFileId = file.id;
  }
  const now = deps.clock.now();
  await withLease(deps, run.id, token, async (tx) => {
    const [inserted] = await tx
      .insert(autouserRunTurns)
      .values({
        id: newId("autouserRunTurn"),
        runId: run.id,
        attempt: run.attemptCount,
        turn,
        comparisonId,
        side: record.side,
        action: record.action as Record<string, unknown>,
        detail: record.detail.slice(0, 2000),
        url: record.url,
        screenshot,
        screenshotFileId,
        inputTokens: record.usage.inputTokens,
        outputTokens: record.usage.outputTokens,
        latencyMs: record.latencyMs,
        costUsd: record.usage.costUsd,
        createdAt: now,
      })
      .returning();
    await tx
      .update(autouserRuns)
      .set({
        inputTokens: sql`${autouserRuns.inputTokens} + ${record.usage.inputTokens}`,
        outputTokens: sql`${autouserRuns.outputTokens} + ${record.usage.outputTokens}`,
        estimatedCostUsd: sql`${autouserRuns.estimatedCostUsd} + ${record.usage.costUsd}`,
        leaseUntil: new Date(now.getTime() + deps.leaseMs),
        heartbeatAt: now,
        updatedAt: now,
      })
      .where(eq(autouserRuns.id, run.id));
    await appendRunEvent(
      tx,
      run.evaluationId,
      run.id,
      "turn",
      { runId: run.id, turn: toTurn(inserted!) },
      now,
    );
  });
  deps.waker?.wake(run.evaluationId);
}
