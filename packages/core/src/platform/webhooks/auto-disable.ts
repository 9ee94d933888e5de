import { type Db, webhookDeliveries, webhookEndpoints } from "@rubricon/db";
import { and, count, desc, eq, gt, gte, not, sql } from "drizzle-orm";
import { notify, teamMemberIds } from "../../identity";
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
  const lastDeliveries = db
    .select({ status: webhookDeliveries.status })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(
      and(
        eq(webhookDeliveries.endpointId, claim.endpointId),
        not(webhookDeliveries.synthetic),
        gte(webhookDeliveries.lastAttemptAt, webhookEndpoints.failureWindowStart),
      ),
    )
    .orderBy(desc(webhookDeliveries.lastAttemptAt))
    .limit(FAILING_DELIVERIES_TO_DISABLE)
    .as("last_deliveries");
  const [recent] = await db
    .select({
      n: count(),
      ok: sql<number>`count(*) filter (where ${lastDeliveries.status} = ${"delivered"})`.mapWith(Number),
    })
    .from(lastDeliveries);
  if (recent && recent.n >= FAILING_DELIVERIES_TO_DISABLE && recent.ok === 0) {
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
    .returning({ teamId: webhookEndpoints.teamId, url: webhookEndpoints.url });
  if (!row) return null;
  for (const userId of await teamMemberIds(db, row.teamId, ["owner", "admin"])) {
    await notify(
      db,
      {
        userId,
        kind: "webhook_endpoint.disabled",
        title: `Webhook endpoint ${row.url} was disabled`,
        body: reason,
        data: { endpointId: claim.endpointId, teamId: row.teamId },
        email: true,
      },
      now,
    );
  }
  return { endpointId: claim.endpointId, teamId: row.teamId, reason };
}
