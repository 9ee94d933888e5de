import { autouserRunEvents, type Db, type DbOrTx } from "@rubricon/db";
import { and, asc, eq, gt, sql } from "drizzle-orm";

/** The Postgres channel that carries "this evaluation's run log grew", to every instance listening. */
export const RUN_EVENTS_CHANNEL = "autouser_run_events";

export type RunEventType = "queued" | "started" | "turn" | "rating" | "completed" | "failed" | "cancelled";

export interface RunLogEntry {
  seq: number;
  runId: string;
  type: RunEventType;
  data: Record<string, unknown>;
  createdAt: Date;
}

/**
 * Appends to an evaluation's run log in the caller's transaction. Writers of one evaluation queue on its advisory
 * lock until they commit, so `seq` is handed out in commit order and a reader that has seen seq n never later
 * finds a smaller one appear. The NOTIFY is sent at commit, so listeners wake once the row is readable.
 */
export async function appendRunEvent(
  tx: DbOrTx,
  evaluationId: string,
  runId: string,
  type: RunEventType,
  data: Record<string, unknown>,
  now: Date,
): Promise<number> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`autouser_run_events:${evaluationId}`}))`);
  const [row] = await tx
    .insert(autouserRunEvents)
    .values({
      evaluationId,
      seq: sql`(select coalesce(max(seq), 0) + 1 from autouser_run_events where evaluation_id = ${evaluationId})`,
      runId,
      type,
      data,
      createdAt: now,
    })
    .returning({ seq: autouserRunEvents.seq });
  await tx.execute(sql`select pg_notify(${RUN_EVENTS_CHANNEL}, ${evaluationId})`);
  return row!.seq;
}

export async function readRunEvents(
  db: DbOrTx,
  evaluationId: string,
  afterSeq: number,
  limit = 500,
): Promise<RunLogEntry[]> {
  const rows = await db
    .select()
    .from(autouserRunEvents)
    .where(and(eq(autouserRunEvents.evaluationId, evaluationId), gt(autouserRunEvents.seq, afterSeq)))
    .orderBy(asc(autouserRunEvents.seq))
    .limit(limit);
  return rows.map((r) => ({ ...r, type: r.type as RunEventType }));
}

export async function lastRunEventSeq(db: DbOrTx, evaluationId: string): Promise<number> {
  const [row] = await db
    .select({ seq: sql<number>`coalesce(max(${autouserRunEvents.seq}), 0)`.mapWith(Number) })
    .from(autouserRunEvents)
    .where(eq(autouserRunEvents.evaluationId, evaluationId));
  return row?.seq ?? 0;
}

type Listener = (evaluationId: string) => void;

/**
 * Wakes stream readers when an evaluation's run log grows: one LISTEN per process on the database (Postgres or
 * the embedded PGlite, which both deliver NOTIFY at commit), fanned out in memory. Readers also re-read on a
 * timer, so a lost notification delays an event; it never loses one.
 */
export class RunEventWaker {
  private readonly listeners = new Map<string, Set<Listener>>();
  private started: Promise<void> | null = null;
  private stop: (() => Promise<void>) | null = null;

  constructor(private readonly db: Db) {}

  private async start(): Promise<void> {
    const client = (this.db as unknown as { $client?: unknown }).$client as
      | {
          listen?: (
            channel: string,
            cb: (payload: string) => void,
          ) => Promise<{ unlisten(): Promise<void> } | (() => Promise<void>)>;
        }
      | undefined;
    if (!client?.listen) return;
    const handle = await client.listen(RUN_EVENTS_CHANNEL, (payload) => this.wake(payload));
    this.stop = typeof handle === "function" ? handle : () => handle.unlisten();
  }

  /** Writers in this process may call it after commit to skip the round trip through the database. */
  wake(evaluationId: string): void {
    for (const l of this.listeners.get(evaluationId) ?? []) l(evaluationId);
  }

  async subscribe(evaluationId: string, listener: Listener): Promise<() => void> {
    this.started ??= this.start().catch(() => {
      this.started = null;
    });
    await this.started;
    let set = this.listeners.get(evaluationId);
    if (!set) {
      set = new Set();
      this.listeners.set(evaluationId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(evaluationId);
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await this.stop?.().catch(() => {});
  }
}
