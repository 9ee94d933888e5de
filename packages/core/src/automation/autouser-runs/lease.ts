import { autouserRuns, type Db, type DbOrTx, evaluations } from "@rubricon/db";
import { and, eq, sql } from "drizzle-orm";
import type { FileStorage, RunEventWaker, RunRow } from "../../evaluation";
import type { Clock, CoreContext } from "../../kernel";

/** What every step of a run needs: where it writes, its clock, and how long a lease lasts. */
export interface RunStepDeps {
  db: Db;
  clock: Clock;
  baseUrl: string;
  storage: FileStorage;
  leaseMs: number;
  waker?: RunEventWaker;
}

export function coreContextOf(deps: RunStepDeps): CoreContext {
  return { db: deps.db, clock: deps.clock, baseUrl: deps.baseUrl };
}

/** The worker lost the run (stopped, cancelled, or taken over): nothing more is written for it. */
export class RunLost extends Error {
  constructor(readonly why: "cancelled" | "lease_lost" | "shutdown") {
    super(`run ${why}`);
  }
}

/**
 * The one gate every write of a run passes: a transaction in which the run row is locked and checked to be still
 * this worker's (running, with its lease token) before the step writes anything. With `evaluationFirst` the
 * evaluation is locked first, the order rating writes and stops take too; the step then sees its locked row.
 */
export async function withLease<T>(
  deps: RunStepDeps,
  runId: string,
  token: string,
  step: (tx: DbOrTx, run: RunRow, evaluation?: typeof evaluations.$inferSelect) => Promise<T>,
  opts: { evaluationFirst?: { id: string; lock: "lock" | "bump-revision" } } = {},
): Promise<T> {
  return deps.db.transaction(async (tx) => {
    let evaluation: typeof evaluations.$inferSelect | undefined;
    const first = opts.evaluationFirst;
    if (first) {
      const evaluationId = first.id;
      if (first.lock === "bump-revision") {
        [evaluation] = await tx
          .update(evaluations)
          .set({ ratingsRevision: sql`${evaluations.ratingsRevision} + 1` })
          .where(eq(evaluations.id, evaluationId))
          .returning();
      } else {
        await tx
          .select({ id: evaluations.id })
          .from(evaluations)
          .where(eq(evaluations.id, evaluationId))
          .for("no key update");
      }
    }
    const [row] = await tx
      .select()
      .from(autouserRuns)
      .where(eq(autouserRuns.id, runId))
      .limit(1)
      .for("no key update");
    if (row?.status !== "running" || row.leaseToken !== token) {
      throw new RunLost(row?.status === "cancelled" ? "cancelled" : "lease_lost");
    }
    return step(tx, row, evaluation);
  });
}

/** Extends the lease; answers why not when the run is no longer this worker's. */
export async function heartbeat(
  deps: RunStepDeps,
  runId: string,
  token: string,
): Promise<"ok" | "cancelled" | "lease_lost"> {
  const now = deps.clock.now();
  const [row] = await deps.db
    .update(autouserRuns)
    .set({ leaseUntil: new Date(now.getTime() + deps.leaseMs), heartbeatAt: now })
    .where(
      and(eq(autouserRuns.id, runId), eq(autouserRuns.leaseToken, token), eq(autouserRuns.status, "running")),
    )
    .returning({ id: autouserRuns.id });
  if (row) return "ok";
  const [current] = await deps.db
    .select({ status: autouserRuns.status })
    .from(autouserRuns)
    .where(eq(autouserRuns.id, runId))
    .limit(1);
  return current?.status === "cancelled" ? "cancelled" : "lease_lost";
}

/** A stopping worker hands its run back: the next worker takes it at once, on the same attempt count. */
export async function release(deps: RunStepDeps, runId: string, token: string): Promise<void> {
  await deps.db
    .update(autouserRuns)
    .set({
      status: "queued",
      leaseToken: null,
      leaseUntil: null,
      attemptCount: sql`greatest(${autouserRuns.attemptCount} - 1, 0)`,
    })
    .where(
      and(eq(autouserRuns.id, runId), eq(autouserRuns.leaseToken, token), eq(autouserRuns.status, "running")),
    );
}
