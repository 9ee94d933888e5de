import { type Db, webhookDeliveries, webhookDeliveryAttempts } from "@rubricon/db";
import { and, eq } from "drizzle-orm";
import type { ClaimedDelivery } from "./claim";
import { nextAttemptAt } from "./schedule";
import type { SendOutcome } from "./send";

export interface Settlement {
  status: "delivered" | "retrying" | "abandoned";
  /** False when this worker's lease had run out and another claim owns the delivery now. */
  applied: boolean;
}

/**
 * Records one attempt and moves the delivery on, in one statement (so it is atomic without a transaction): to
 * `delivered` on 2xx, else to `retrying` at the next scheduled time, or `abandoned` once the schedule is used
 * up. Only the claim that holds the lease may move the delivery; the attempt is logged either way.
 */
export async function settleDelivery(
  db: Db,
  claim: ClaimedDelivery,
  outcome: SendOutcome,
  startedAt: Date,
  now: Date,
  retryDelaysMs: readonly number[],
): Promise<Settlement> {
  const number = claim.attemptCount + 1;
  const next = outcome.ok ? null : nextAttemptAt(now, number, retryDelaysMs);
  const status = outcome.ok ? "delivered" : next ? "retrying" : "abandoned";
  const attempt = db.$with("attempt").as(
    db.insert(webhookDeliveryAttempts).values({
      deliveryId: claim.id,
      number,
      startedAt,
      durationMs: outcome.durationMs,
      succeeded: outcome.ok,
      statusCode: outcome.statusCode,
      responseBody: outcome.responseBody,
      error: outcome.error,
    }),
  );
  const rows = await db
    .with(attempt)
    .update(webhookDeliveries)
    .set({
      status,
      attemptCount: number,
      nextAttemptAt: next,
      claimedUntil: null,
      claimToken: null,
      lastAttemptAt: startedAt,
      lastStatusCode: outcome.statusCode,
      lastError: outcome.error,
      ...(outcome.ok ? { deliveredAt: now } : {}),
      updatedAt: now,
    })
    .where(and(eq(webhookDeliveries.id, claim.id), eq(webhookDeliveries.claimToken, claim.token)))
    .returning({ id: webhookDeliveries.id });
  return { status, applied: rows.length > 0 };
}
