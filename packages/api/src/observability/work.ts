/**
 * What the background loops report as they work: autouser runs settled (by judge and reason, with their
 * duration), the model tokens and cost their turns spent, webhook attempts (the outbox lag of first attempts).
 * Each becomes metrics and a log line naming the run or delivery.
 */
import type { DeliveryObserver, RunObserver } from "@rubricon/core";
import { log } from "./logger";
import { modelCost, modelTokens, outboxLag, runDuration, runsFinished } from "./metrics";

export const runObserver: RunObserver = {
  turn(provider, usage) {
    if (usage.inputTokens > 0) modelTokens.inc({ provider, direction: "input" }, usage.inputTokens);
    if (usage.outputTokens > 0) modelTokens.inc({ provider, direction: "output" }, usage.outputTokens);
    if (usage.costUsd > 0) modelCost.inc({ provider }, usage.costUsd);
  },
  settled(run) {
    runsFinished.inc({ status: run.status, judge: run.judge, reason: run.reason });
    if (run.durationMs !== null) runDuration.observe({ status: run.status }, run.durationMs / 1000);
    const fields = {
      loop: "autousers",
      runId: run.runId,
      evaluationId: run.evaluationId,
      status: run.status,
      judge: run.judge,
      reason: run.reason,
      ms: run.durationMs === null ? undefined : Math.round(run.durationMs),
    };
    if (run.status === "failed") log().warn(fields, `autouser run ${run.runId} failed (${run.reason})`);
    else log().info(fields, `autouser run ${run.runId} completed`);
  },
};

export const deliveryObserver: DeliveryObserver = {
  attempted(attempt) {
    if (attempt.outboxLagMs !== null) outboxLag.observe(Math.max(0, attempt.outboxLagMs) / 1000);
    const fields = {
      loop: "webhooks",
      deliveryId: attempt.deliveryId,
      endpointId: attempt.endpointId,
      attempt: attempt.attempt,
      ok: attempt.ok,
      status: attempt.statusCode ?? undefined,
      ms: attempt.durationMs,
    };
    // Every attempt is in the delivery log too; a failed one is worth a line at the default level.
    if (attempt.ok) log().debug(fields, `webhook delivery ${attempt.deliveryId} delivered`);
    else log().info(fields, `webhook delivery ${attempt.deliveryId} attempt ${attempt.attempt} failed`);
  },
};
