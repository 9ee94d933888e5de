import { type Db, type DbOrTx, events, webhookDeliveries, webhookEndpoints } from "@rubricon/db";
import { and, asc, eq, isNull, lte, or, sql } from "drizzle-orm";
import { randomToken } from "../../kernel";
import { eventPayload } from "./serialize";

/** A delivery a worker holds until `leaseUntil`, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  token: string;
  endpointId: string;
  teamId: string;
  eventId: string;
  eventType: string;
  synthetic: boolean;
  attemptCount: number;
  /** The event as stored, in the newest API version's shape. */
  payload: string;
  /** The version the endpoint receives payloads in. */
  apiVersion: string;
  url: string;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  goneStreak: number;
  /** When the delivery was written to the outbox (with its event, in the event's transaction). */
  createdAt: Date;
}

/**
 * Takes up to `limit` due deliveries of enabled endpoints. `FOR UPDATE SKIP LOCKED` keeps concurrent workers off
 * each other's rows, and the lease (`claimed_until`) keeps them off while this one sends; if it dies, the lease
 * runs out and another worker sends again (a possible duplicate, never a loss).
 */
export async function claimDueDeliveries(
  db: Db,
  now: Date,
  leaseMs: number,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const token = randomToken(12);
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const due = db.$with("due").as(
    db
      .select({
        id: webhookDeliveries.id,
        endpointId: webhookDeliveries.endpointId,
        eventId: webhookDeliveries.eventId,
      })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(
        and(
          // Written as the due index's predicate, so the planner can use that partial index.
          sql`${webhookDeliveries.status} in ('pending', 'retrying')`,
          lte(webhookDeliveries.nextAttemptAt, now),
          or(isNull(webhookDeliveries.claimedUntil), lte(webhookDeliveries.claimedUntil, now)),
          eq(webhookEndpoints.status, "enabled"),
        ),
      )
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(limit)
      .for("update", { of: webhookDeliveries, skipLocked: true }),
  );
  const rows = await db
    .with(due)
    .update(webhookDeliveries)
    .set({ claimedUntil: leaseUntil, claimToken: token })
    .from(due)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, due.endpointId))
    .leftJoin(events, eq(events.id, due.eventId))
    .where(eq(webhookDeliveries.id, due.id))
    .returning({
      id: webhookDeliveries.id,
      endpointId: webhookDeliveries.endpointId,
      teamId: webhookEndpoints.teamId,
      eventId: webhookDeliveries.eventId,
      eventType: webhookDeliveries.eventType,
      synthetic: webhookDeliveries.synthetic,
      attemptCount: webhookDeliveries.attemptCount,
      payload: sql<string | null>`coalesce(${webhookDeliveries.payload}, ${events.payload})`,
      url: webhookEndpoints.url,
      apiVersion: webhookEndpoints.apiVersion,
      secretSealed: webhookEndpoints.secretSealed,
      previousSecretSealed: webhookEndpoints.previousSecretSealed,
      previousSecretExpiresAt: webhookEndpoints.previousSecretExpiresAt,
      goneStreak: webhookEndpoints.goneStreak,
      createdAt: webhookDeliveries.createdAt,
    });
  const claimed: ClaimedDelivery[] = [];
  for (const { payload, ...row } of rows) {
    claimed.push({ ...row, token, payload: payload ?? (await legacyPayload(db, row.eventId)) });
  }
  return claimed;
}

/** Events written before payloads were stored are serialised from their columns. */
async function legacyPayload(db: DbOrTx, eventId: string): Promise<string> {
  const [row] = await db.select().from(events).where(eq(events.id, eventId)).limit(1);
  if (!row) throw new Error(`delivery for missing event ${eventId}`);
  return eventPayload(row);
}
