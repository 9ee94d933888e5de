import { autouserRuns, type Db } from "@rubricon/db";
import { and, asc, eq, getTableColumns, lt, lte, or, sql } from "drizzle-orm";
import type { RunRow } from "../../evaluation";

/**
 * Takes up to `limit` runs: queued ones, and running ones whose worker's lease ran out (it died) and that have
 * attempts left. `FOR UPDATE SKIP LOCKED` keeps concurrent workers off each other's rows; the new lease token
 * makes every later write of the previous holder fail.
 */
export async function claimRuns(
  db: Db,
  now: Date,
  leaseMs: number,
  token: string,
  limit: number,
): Promise<RunRow[]> {
  if (limit <= 0) return [];
  const due = db.$with("due").as(
    db
      .select({ id: autouserRuns.id })
      .from(autouserRuns)
      .where(
        or(
          eq(autouserRuns.status, "queued"),
          and(
            eq(autouserRuns.status, "running"),
            lte(autouserRuns.leaseUntil, now),
            lt(autouserRuns.attemptCount, autouserRuns.maxAttempts),
          ),
        ),
      )
      .orderBy(asc(autouserRuns.createdAt))
      .limit(limit)
      .for("update", { skipLocked: true }),
  );
  return db
    .with(due)
    .update(autouserRuns)
    .set({
      status: "running",
      leaseToken: token,
      leaseUntil: new Date(now.getTime() + leaseMs),
      heartbeatAt: now,
      attemptCount: sql`${autouserRuns.attemptCount} + 1`,
      startedAt: sql`coalesce(${autouserRuns.startedAt}, ${now.toISOString()}::timestamptz)`,
      updatedAt: now,
    })
    .from(due)
    .where(eq(autouserRuns.id, due.id))
    .returning(getTableColumns(autouserRuns));
}

/** Runs whose lease ran out on their last attempt: each is failed by the sweep, once. */
export async function exhaustedRuns(db: Db, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: autouserRuns.id })
    .from(autouserRuns)
    .where(
      and(
        eq(autouserRuns.status, "running"),
        lte(autouserRuns.leaseUntil, now),
        sql`${autouserRuns.attemptCount} >= ${autouserRuns.maxAttempts}`,
      ),
    )
    .limit(limit);
  return rows.map((r) => r.id);
}
