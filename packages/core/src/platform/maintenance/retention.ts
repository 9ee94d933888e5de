import { type DbOrTx, events, publicRaters, ratings, teams, webhookDeliveries } from "@rubricon/db";
import { and, eq, inArray, lt, notExists, type SQL, type SQLWrapper, sql } from "drizzle-orm";

/** How long a team's event log and webhook deliveries are kept, by plan. */
export const RETENTION_DAYS = { free: 30, team: 30, pro: 90, enterprise: 365 } as const;
/** Public raters who never rated are forgotten after this long. */
export const IDLE_RATER_RETENTION_DAYS = 30;
/** Rows deleted per statement, and statements per pass: a pass never holds locks or the table for long. */
const BATCH = 1_000;
const MAX_BATCHES = 50;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The cutoff for rows of the team `teamId` refers to, from its plan. */
function expired(createdAt: SQLWrapper, teamId: SQLWrapper, now: Date): SQL {
  const days = sql`case (select ${teams.plan} from ${teams} where ${teams.id} = ${teamId})
    when 'enterprise' then ${sql.raw(String(RETENTION_DAYS.enterprise))} when 'pro' then ${sql.raw(String(RETENTION_DAYS.pro))}
    else ${sql.raw(String(RETENTION_DAYS.free))} end`;
  // The shortest retention bounds the scan through the created_at index; the plan then decides per row.
  const earliest = new Date(now.getTime() - RETENTION_DAYS.free * DAY_MS);
  return sql`${createdAt} < ${earliest.toISOString()}::timestamptz
    and ${createdAt} < ${now.toISOString()}::timestamptz - (${days}) * interval '1 day'`;
}

async function inBatches(run: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const n = await run();
    total += n;
    if (n < BATCH) break;
  }
  return total;
}

/** Settled deliveries past their team's retention (their attempts go with them). Pending ones are kept. */
export function pruneWebhookDeliveries(db: DbOrTx, now: Date): Promise<number> {
  return inBatches(async () => {
    const batch = db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(
        and(
          inArray(webhookDeliveries.status, ["delivered", "abandoned"]),
          expired(webhookDeliveries.createdAt, webhookDeliveries.teamId, now),
        ),
      )
      .limit(BATCH);
    const rows = await db
      .delete(webhookDeliveries)
      .where(inArray(webhookDeliveries.id, batch))
      .returning({ id: webhookDeliveries.id });
    return rows.length;
  });
}

/** Events past their team's retention that no delivery still waits to send. */
export function pruneEvents(db: DbOrTx, now: Date): Promise<number> {
  return inBatches(async () => {
    const waiting = db
      .select({ one: sql`1` })
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.eventId, events.id),
          inArray(webhookDeliveries.status, ["pending", "retrying"]),
        ),
      );
    const batch = db
      .select({ id: events.id })
      .from(events)
      .where(and(expired(events.createdAt, events.teamId, now), notExists(waiting)))
      .limit(BATCH);
    const rows = await db.delete(events).where(inArray(events.id, batch)).returning({ id: events.id });
    return rows.length;
  });
}

/** Public raters who started long ago and never rated: nothing of theirs is in any result. */
export function pruneIdleRaters(db: DbOrTx, now: Date): Promise<number> {
  return inBatches(async () => {
    const rated = db.select({ one: sql`1` }).from(ratings).where(eq(ratings.publicRaterId, publicRaters.id));
    const batch = db
      .select({ id: publicRaters.id })
      .from(publicRaters)
      .where(
        and(
          lt(publicRaters.createdAt, new Date(now.getTime() - IDLE_RATER_RETENTION_DAYS * DAY_MS)),
          notExists(rated),
        ),
      )
      .limit(BATCH);
    const rows = await db
      .delete(publicRaters)
      .where(inArray(publicRaters.id, batch))
      .returning({ id: publicRaters.id });
    return rows.length;
  });
}
