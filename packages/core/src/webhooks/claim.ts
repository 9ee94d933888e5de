import { type Db, type DbOrTx, events, queryRows } from "@rubricon/db";
import { eq, sql } from "drizzle-orm";
import { randomToken } from "../shared/crypto";
import { eventPayload } from "./serialize";
import { ts } from "./sql-time";

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
  payload: string;
  url: string;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  goneStreak: number;
}

interface ClaimRow extends Record<string, unknown> {
  id: string;
  endpoint_id: string;
  team_id: string;
  event_id: string;
  event_type: string;
  synthetic: boolean;
  attempt_count: number;
  payload: string | null;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | string | null;
  gone_streak: number;
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
  const rows = await queryRows<ClaimRow>(
    db,
    sql`with due as (
      select d.id, d.endpoint_id, d.event_id from webhook_deliveries d
      join webhook_endpoints e on e.id = d.endpoint_id
      where d.status in ('pending', 'retrying') and d.next_attempt_at <= ${ts(now)}
        and (d.claimed_until is null or d.claimed_until <= ${ts(now)})
        and e.status = 'enabled'
      order by d.next_attempt_at
      limit ${limit}
      for update of d skip locked
    )
    update webhook_deliveries w set claimed_until = ${ts(leaseUntil)}, claim_token = ${token}
    from due
    join webhook_endpoints e on e.id = due.endpoint_id
    left join events ev on ev.id = due.event_id
    where w.id = due.id
    returning w.id, w.endpoint_id, e.team_id, w.event_id, w.event_type, w.synthetic, w.attempt_count,
      coalesce(w.payload, ev.payload) as payload, e.url, e.secret_sealed, e.previous_secret_sealed,
      e.previous_secret_expires_at, e.gone_streak`,
  );
  const claimed: ClaimedDelivery[] = [];
  for (const r of rows) {
    claimed.push({
      id: r.id,
      token,
      endpointId: r.endpoint_id,
      teamId: r.team_id,
      eventId: r.event_id,
      eventType: r.event_type,
      synthetic: r.synthetic,
      attemptCount: Number(r.attempt_count),
      payload: r.payload ?? (await legacyPayload(db, r.event_id)),
      url: r.url,
      secretSealed: r.secret_sealed,
      previousSecretSealed: r.previous_secret_sealed,
      previousSecretExpiresAt:
        r.previous_secret_expires_at === null ? null : new Date(r.previous_secret_expires_at),
      goneStreak: Number(r.gone_streak),
    });
  }
  return claimed;
}

/** Events written before payloads were stored are serialised from their columns. */
async function legacyPayload(db: DbOrTx, eventId: string): Promise<string> {
  const [row] = await db.select().from(events).where(eq(events.id, eventId)).limit(1);
  if (!row) throw new Error(`delivery for missing event ${eventId}`);
  return eventPayload(row);
}
