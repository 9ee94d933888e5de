import {
  closeDueEvaluations,
  foldPendingTallies,
  removeOrphanedFiles,
  runInsightsPass,
  runMaintenance,
} from "@rubricon/core";
import { createFileStorage } from "../files/storage";
import { insightsWriterFor } from "../models";
import { log } from "../observability/logger";
import type { AppServices } from "../request/services";
import { autouserRunLoop } from "./autouser-runs";
import type { BackgroundLoop } from "./background-loop";
import { emailLoop } from "./email";
import { webhookDeliveryLoop } from "./webhook-deliveries";

export type { BackgroundLoop } from "./background-loop";

export const MAINTENANCE_INTERVAL_MS = 10 * 60 * 1000;
/** How late, at most, an evaluation whose rating deadline passed is ended by the sweep. */
export const COMPLETION_SWEEP_INTERVAL_MS = 15 * 1000;
/** How soon a requested AI insights summary is started, at most. */
export const INSIGHTS_POLL_INTERVAL_MS = 1000;
/**
 * How often queued ratings are folded into their evaluations' stored tallies: a burst is folded in batches about
 * this far apart, and the first results read after it finds little left to fold.
 */
export const RATING_TALLY_INTERVAL_MS = 1000;
/** Summaries one pass writes before yielding to the other loops. */
const INSIGHTS_PER_PASS = 5;

/** Every loop the worker runs; the web process runs the same ones when no separate worker is deployed. */
export function backgroundLoops(
  services: Pick<AppServices, "db" | "env" | "clock"> & Partial<Pick<AppServices, "runWaker" | "storage">>,
): BackgroundLoop[] {
  const core = { db: services.db, clock: services.clock, baseUrl: services.env.baseUrl };
  const storage = services.storage ?? createFileStorage(services.env);
  return [
    {
      name: "maintenance",
      intervalMs: MAINTENANCE_INTERVAL_MS,
      async run() {
        const removed = await runMaintenance(services.db, services.clock.now());
        const files = await removeOrphanedFiles(services.db, storage, services.clock.now());
        return (
          `removed ${removed.idempotencyRecords} idempotency records, ${removed.sessions} sessions, ` +
          `${removed.events} events, ${removed.webhookDeliveries} webhook deliveries, ${removed.idleRaters} idle raters ` +
          `and ${files} orphaned files`
        );
      },
    },
    {
      name: "completion",
      intervalMs: COMPLETION_SWEEP_INTERVAL_MS,
      async run() {
        const ended = await closeDueEvaluations(core);
        return ended > 0 ? `ended ${ended} evaluations whose rating window closed` : null;
      },
    },
    {
      name: "rating tallies",
      intervalMs: RATING_TALLY_INTERVAL_MS,
      async run() {
        const pass = await foldPendingTallies(services.db);
        // Folds are quiet; a rebuild from every rating (after deletes or exclusions, or a first tally) is worth a
        // line, and a failed fold is reported as a failed pass.
        if (pass.failed.length > 0)
          throw new Error(`folding ${pass.failed.length} evaluations' ratings: ${pass.failed.join("; ")}`);
        return pass.rebuilt > 0
          ? `rebuilt ${pass.rebuilt} stored tallies from every rating, folded ${pass.folded} queued ratings`
          : null;
      },
    },
    autouserRunLoop({ ...services, storage }),
    emailLoop(services),
    {
      name: "insights",
      intervalMs: INSIGHTS_POLL_INTERVAL_MS,
      async run() {
        const writerFor = insightsWriterFor(services);
        const lines: string[] = [];
        for (let i = 0; i < INSIGHTS_PER_PASS; i++) {
          const done = await runInsightsPass(core, writerFor);
          if (!done) break;
          if (done.status !== "ready") lines.push(`ai insights of ${done.evaluationId}: ${done.status}`);
        }
        return lines.length > 0 ? lines.join("\n") : null;
      },
    },
    // Deliveries wait in the outbox while the feature is off and go out once it is on.
    ...(services.env.webhooksEnabled ? [webhookDeliveryLoop(services)] : []),
  ];
}

export interface RunningLoops {
  /** Stops scheduling and waits for passes in flight, so none is cut off mid-statement. */
  stop(): Promise<void>;
  /** Leases held now, by queue (`autouser_runs`, `webhook_deliveries`). */
  held(): Record<string, number>;
}

/** Where a loop's pass reports: its line, the loop's name, and whether the pass failed. */
export type LoopLog = (line: string, fields: { loop: string; failed?: boolean }) => void;

export function startLoops(loops: BackgroundLoop[], log: LoopLog): RunningLoops {
  let stopping = false;
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  const schedule = (loop: BackgroundLoop, delay: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      const pass = loop
        .run()
        .then((line) => {
          if (line) for (const one of line.split("\n")) log(one, { loop: loop.name });
        })
        // A failed pass (the database restarting, say) is retried on the next tick instead of ending the loop.
        .catch((err: unknown) =>
          log(`${loop.name} failed: ${err instanceof Error ? err.message : String(err)}`, {
            loop: loop.name,
            failed: true,
          }),
        )
        .finally(() => {
          inFlight.delete(pass);
          if (!stopping) schedule(loop, loop.intervalMs);
        });
      inFlight.add(pass);
    }, delay);
    timer.unref?.();
    timers.add(timer);
  };
  for (const loop of loops) schedule(loop, 0);
  return {
    held: () =>
      Object.fromEntries(loops.flatMap((l) => (l.leases ? [[l.leases.queue, l.leases.held()]] : []))),
    async stop() {
      stopping = true;
      for (const t of timers) clearTimeout(t);
      for (const loop of loops) loop.interrupt?.();
      await Promise.all(inFlight);
      for (const loop of loops) loop.close?.();
    },
  };
}

const EMBEDDED_LOOPS = Symbol.for("rubricon.embeddedLoops");
const loopSlot = globalThis as typeof globalThis & { [EMBEDDED_LOOPS]?: RunningLoops };

/**
 * Starts the background loops inside a web process, once per process however many bundles ask (Next.js loads
 * instrumentation and the production server's own copy separately), unless a separate worker runs them.
 */
export function startEmbeddedWorker(
  services: Pick<AppServices, "db" | "env" | "clock"> & Partial<Pick<AppServices, "runWaker" | "storage">>,
): RunningLoops | undefined {
  if (!services.env.embeddedWorker || loopSlot[EMBEDDED_LOOPS]) return undefined;
  loopSlot[EMBEDDED_LOOPS] = startLoops(backgroundLoops(services), logLoopLine);
  return loopSlot[EMBEDDED_LOOPS];
}

/** A loop's line as a log record; ids the line names (run, delivery) are fields too, for searching. */
export const logLoopLine: LoopLog = (line, fields) => {
  const ids = idsIn(line);
  // A failed pass is retried on the next tick: a warning, unless it keeps coming back.
  if (fields.failed) log().warn({ ...fields, ...ids }, line);
  else log().info({ ...fields, ...ids }, line);
};

const RUN_ID = /\b(arun_[0-9a-z]+)/;
const DELIVERY_ID = /\b(whd_[0-9a-z]+)/;

function idsIn(line: string): { runId?: string; deliveryId?: string } {
  const run = RUN_ID.exec(line)?.[1];
  const delivery = DELIVERY_ID.exec(line)?.[1];
  return { ...(run ? { runId: run } : {}), ...(delivery ? { deliveryId: delivery } : {}) };
}
