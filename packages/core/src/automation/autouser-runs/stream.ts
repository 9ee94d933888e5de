import { lastRunEventSeq, loadVisibleEvaluation, type RunEventWaker, readRunEvents } from "../../evaluation";
import type { Actor, CoreContext } from "../../kernel";
import { runStatus } from "./runs";

export interface RunStreamEvent {
  id?: string;
  event: string;
  data: unknown;
}

/** How often a reader looks at the log without a wake-up: a missed NOTIFY costs at most this much delay. */
export const STREAM_RECHECK_MS = 1_000;

/**
 * The autouser stream of an evaluation: a `snapshot` (unless resuming), then every logged event after
 * `lastEventId` in order, live, and `done` once no run is queued or running. Event ids are the log's `seq`.
 */
export async function* streamRunEvents(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  options: { lastEventId?: string; waker: RunEventWaker; signal?: AbortSignal; recheckMs?: number },
): AsyncGenerator<RunStreamEvent> {
  await loadVisibleEvaluation(ctx.db, actor, evaluationId, { need: "VIEWER" });
  let wake: (() => void) | null = null;
  let woken = false;
  const unsubscribe = await options.waker.subscribe(evaluationId, () => {
    woken = true;
    wake?.();
  });
  try {
    let after: number;
    if (options.lastEventId !== undefined) {
      after = Number(options.lastEventId);
    } else {
      after = await lastRunEventSeq(ctx.db, evaluationId);
      yield { id: String(after), event: "snapshot", data: await runStatus(ctx, evaluationId) };
    }
    for (;;) {
      woken = false;
      const events = await readRunEvents(ctx.db, evaluationId, after);
      for (const e of events) {
        after = e.seq;
        yield { id: String(e.seq), event: e.type, data: { ...e.data, at: e.createdAt.toISOString() } };
      }
      if (events.length === 500) continue;
      const status = await runStatus(ctx, evaluationId);
      if (status.summary.queued + status.summary.running === 0) {
        // Anything logged between the read and the status check is sent before `done`.
        const late = await readRunEvents(ctx.db, evaluationId, after);
        for (const e of late) {
          after = e.seq;
          yield { id: String(e.seq), event: e.type, data: { ...e.data, at: e.createdAt.toISOString() } };
        }
        yield { event: "done", data: status };
        return;
      }
      if (options.signal?.aborted) return;
      if (!woken) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            options.signal?.removeEventListener("abort", done);
            resolve();
          };
          const timer = setTimeout(done, options.recheckMs ?? STREAM_RECHECK_MS);
          wake = done;
          options.signal?.addEventListener("abort", done, { once: true });
        });
        wake = null;
      }
    }
  } finally {
    unsubscribe();
  }
}
