import { type DbOrTx, idempotencyRecords, sessions } from "@rubricon/db";
import { lt } from "drizzle-orm";
import { IDEMPOTENCY_TTL_MS } from "../../kernel";
import { pruneEvents, pruneIdleRaters, pruneWebhookDeliveries } from "./retention";

export async function deleteExpiredIdempotencyRecords(db: DbOrTx, now: Date): Promise<number> {
  const rows = await db
    .delete(idempotencyRecords)
    .where(lt(idempotencyRecords.createdAt, new Date(now.getTime() - IDEMPOTENCY_TTL_MS)))
    .returning({ key: idempotencyRecords.key });
  return rows.length;
}

export async function deleteExpiredSessions(db: DbOrTx, now: Date): Promise<number> {
  const rows = await db.delete(sessions).where(lt(sessions.expiresAt, now)).returning({ id: sessions.id });
  return rows.length;
}

export interface MaintenanceResult {
  idempotencyRecords: number;
  sessions: number;
  events: number;
  webhookDeliveries: number;
  idleRaters: number;
}

/** One pass of the periodic cleanup the worker runs: nothing the product stores grows without bound. */
export async function runMaintenance(db: DbOrTx, now: Date): Promise<MaintenanceResult> {
  return {
    idempotencyRecords: await deleteExpiredIdempotencyRecords(db, now),
    sessions: await deleteExpiredSessions(db, now),
    // Deliveries first: an event is kept while a delivery of it still waits.
    webhookDeliveries: await pruneWebhookDeliveries(db, now),
    events: await pruneEvents(db, now),
    idleRaters: await pruneIdleRaters(db, now),
  };
}
