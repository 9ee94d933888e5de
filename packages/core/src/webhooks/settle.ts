import { type Db, queryRows } from "@rubricon/db";
import { sql } from "drizzle-orm";
import type { ClaimedDelivery } from "./claim";
import { nextAttemptAt } from "./schedule";
import type { SendOutcome } from "./send";
import { ts } from "./sql-time";

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
  const rows = await queryRows<{ id: string }>(
    db,
    sql`with attempt as (
      insert into webhook_delivery_attempts
        (delivery_id, number, started_at, duration_ms, succeeded, status_code, response_body, error)
      values (${claim.id}, ${number}, ${ts(startedAt)}, ${outcome.durationMs}, ${outcome.ok}, ${outcome.statusCode},
        ${outcome.responseBody}, ${outcome.error})
    )
    update webhook_deliveries set
      status = ${status},
      attempt_count = ${number},
      next_attempt_at = ${next ? ts(next) : null},
      claimed_until = null,
      claim_token = null,
      last_attempt_at = ${ts(startedAt)},
      last_status_code = ${outcome.statusCode},
      last_error = ${outcome.error},
      delivered_at = ${outcome.ok ? ts(now) : sql`delivered_at`},
      updated_at = ${ts(now)}
    where id = ${claim.id} and claim_token = ${claim.token}
    returning id`,
  );
  return { status, applied: rows.length > 0 };
}
