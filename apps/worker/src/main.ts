/**
 * The background process (`pnpm worker`). For now it runs the periodic database maintenance; webhook delivery and
 * autouser runs will join it here.
 */
import { loadEnv } from "@rubricon/api";
import { runMaintenance, systemClock } from "@rubricon/core";
import { sharedDatabase } from "@rubricon/db";

const MAINTENANCE_INTERVAL_MS = 10 * 60 * 1000;

function log(message: string): void {
  process.stdout.write(`${new Date().toISOString()} worker ${message}\n`);
}

async function main(): Promise<void> {
  const env = loadEnv();
  const database = await sharedDatabase({
    url: env.databaseUrl,
    dataDir: env.databaseUrl ? undefined : `${env.dataDir}/pglite`,
    migrate: true,
  });
  log(`started (${database.kind})`);

  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const maintain = async () => {
    const started = Date.now();
    try {
      const removed = await runMaintenance(database.db, systemClock.now());
      log(
        `maintenance removed ${removed.idempotencyRecords} idempotency records and ${removed.sessions} sessions in ${Date.now() - started} ms`,
      );
    } catch (err) {
      // A failed pass (e.g. the database restarting) is retried on the next tick rather than ending the worker.
      log(`maintenance failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const tick = () => {
    running = maintain().finally(() => {
      if (!stopping) timer = setTimeout(tick, MAINTENANCE_INTERVAL_MS);
    });
  };
  tick();

  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received, stopping`);
    clearTimeout(timer);
    // Let a pass in flight finish so its deletes are not cut off mid-statement.
    await running;
    await database.close();
    log("stopped");
  };
  process.once("SIGINT", (s) => void stop(s));
  process.once("SIGTERM", (s) => void stop(s));
}

main().catch((err: unknown) => {
  process.stderr.write(`worker failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
