import type { DbOrTx } from "@rubricon/db";
import { sql } from "drizzle-orm";

/*
 * What the operator's health checks and metrics read from the database. Each is one cheap statement (the claim
 * indexes cover the queue counts), run at probe or scrape time.
 */

/** postgres.js answers the rows, PGlite an object holding them. */
function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** How many migrations have run on the database (Drizzle's migration table). */
export async function appliedMigrationCount(db: DbOrTx): Promise<number | undefined> {
  const [row] = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`),
  );
  return row?.n;
}

/** Autouser runs waiting and in progress, by status. */
export async function autouserRunQueue(db: DbOrTx): Promise<{ status: string; n: number }[]> {
  return rowsOf(
    await db.execute(
      sql`select status, count(*)::int as n from autouser_runs where status in ('queued', 'running') group by status`,
    ),
  );
}

/** Seconds the oldest queued autouser run has waited, or null when none waits. */
export async function oldestQueuedRunAge(db: DbOrTx): Promise<number | null> {
  const [row] = rowsOf<{ s: number | null }>(
    await db.execute(
      sql`select extract(epoch from now() - min(created_at))::float8 as s from autouser_runs where status = 'queued'`,
    ),
  );
  return row?.s ?? null;
}

/** Webhook deliveries not yet delivered, by status. */
export async function webhookDeliveryQueue(db: DbOrTx): Promise<{ status: string; n: number }[]> {
  return rowsOf(
    await db.execute(
      sql`select status, count(*)::int as n from webhook_deliveries where status in ('pending', 'retrying', 'abandoned') group by status`,
    ),
  );
}

/** Seconds the oldest delivery waiting for its first or next attempt has waited, or null when none waits. */
export async function oldestPendingDeliveryAge(db: DbOrTx): Promise<number | null> {
  const [row] = rowsOf<{ s: number | null }>(
    await db.execute(
      sql`select extract(epoch from now() - min(created_at))::float8 as s from webhook_deliveries where status in ('pending', 'retrying')`,
    ),
  );
  return row?.s ?? null;
}

/** New ratings queued for folding into their evaluations' stored tallies. */
export async function ratingTallyQueue(db: DbOrTx): Promise<number> {
  const [row] = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from rating_tally_pending`),
  );
  return row?.n ?? 0;
}

/** Seconds the oldest rating queued for its stored tally has waited, or null when none waits. */
export async function oldestQueuedTallyAge(db: DbOrTx): Promise<number | null> {
  const [row] = rowsOf<{ s: number | null }>(
    await db.execute(
      sql`select extract(epoch from now() - min(queued_at))::float8 as s from rating_tally_pending`,
    ),
  );
  return row?.s ?? null;
}
