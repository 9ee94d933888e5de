import { type Db, queryRows, webhookEndpoints } from "@rubricon/db";
import { and, eq, gt, sql } from "drizzle-orm";
import type { ClaimedDelivery } from "./claim";
import type { SendOutcome } from "./send";

/** An endpoint whose last this-many real deliveries all failed is disabled. */
export const FAILING_DELIVERIES_TO_DISABLE = 50;
/** An endpoint answering 410 Gone this many times in a row is disabled: the receiver says it is gone. */
export const GONE_ANSWERS_TO_DISABLE = 3;

export interface DisabledEndpoint {
  endpointId: string;
  teamId: string;
  reason: string;
}

/**
 * Applies the automatic disabling rules after an attempt of a real (not test) delivery. Answers the endpoint
 * when this attempt disabled it, so the caller can report it.
 */
export async function checkEndpointHealth(
  db: Db,
  claim: ClaimedDelivery,
  outcome: SendOutcome,
  now: Date,
): Promise<DisabledEndpoint | null> {
  if (claim.synthetic) return null;
  if (outcome.statusCode === 410) {
    const [row] = await db
      .update(webhookEndpoints)
      .set({ goneStreak: sql`${webhookEndpoints.goneStreak} + 1` })
      .where(eq(webhookEndpoints.id, claim.endpointId))
      .returning({ goneStreak: webhookEndpoints.goneStreak });
    if (row && row.goneStreak >= GONE_ANSWERS_TO_DISABLE) {
      return disable(db, claim, now, `The endpoint answered 410 Gone ${row.goneStreak} times in a row.`);
    }
  } else if (claim.goneStreak > 0) {
    await db
      .update(webhookEndpoints)
      .set({ goneStreak: 0 })
      .where(and(eq(webhookEndpoints.id, claim.endpointId), gt(webhookEndpoints.goneStreak, 0)));
  }
  if (outcome.ok) return null;
  const [recent] = await queryRows<{ n: number; ok: number }>(
    db,
    sql`select count(*)::int as n, count(*) filter (where s.status = 'delivered')::int as ok from (
      select d.status from webhook_deliveries d
      join webhook_endpoints e on e.id = d.endpoint_id
      where d.endpoint_id = ${claim.endpointId} and not d.synthetic
        and d.last_attempt_at >= e.failure_window_start
      order by d.last_attempt_at desc
      limit ${FAILING_DELIVERIES_TO_DISABLE}
    ) s`,
  );
  if (recent && Number(recent.n) >= FAILING_DELIVERIES_TO_DISABLE && Number(recent.ok) === 0) {
    return disable(db, claim, now, `The last ${FAILING_DELIVERIES_TO_DISABLE} deliveries all failed.`);
  }
  return null;
}

async function disable(
  db: Db,
  claim: ClaimedDelivery,
  now: Date,
  reason: string,
): Promise<DisabledEndpoint | null> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ status: "disabled", disabledReason: reason, disabledAt: now, updatedAt: now })
    .where(and(eq(webhookEndpoints.id, claim.endpointId), eq(webhookEndpoints.status, "enabled")))
    .returning({ teamId: webhookEndpoints.teamId });
  return row ? { endpointId: claim.endpointId, teamId: row.teamId, reason } : null;
}
