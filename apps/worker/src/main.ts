/**
 * The background process (`pnpm worker`): webhook deliveries (with `WEBHOOKS_ENABLED`), periodic maintenance and
 * the sweep that ends evaluations whose rating window closed. Deployments that run it set `EMBEDDED_WORKER=false`
 * on the web processes.
 */
import { backgroundLoops, loadEnv, startLoops } from "@rubricon/api";
import { systemClock } from "@rubricon/core";
import { sharedDatabase } from "@rubricon/db";

/** How long a stop may take before the worker exits anyway; leases make anything left over safe to retry. */
const SHUTDOWN_GRACE_MS = 30_000;

function log(message: string): void {
  process.stdout.write(`${new Date().toISOString()} worker ${message}\n`);
}

async function main(): Promise<void> {
  const env = loadEnv();
  const database = await sharedDatabase({
    url: env.databaseUrl,
    dataDir: env.databaseUrl ? undefined : `${env.dataDir}/pglite`,
    prepareStatements: env.databasePrepareStatements,
    migrate: true,
  });
  log(`started (${database.kind})`);
  const loops = startLoops(backgroundLoops({ db: database.db, env, clock: systemClock }), log);

  // The loops' timers are unref'd (so embedding them never holds a process open); this keeps the worker up.
  const keepAlive = setInterval(() => {}, 1 << 30);
  let stopping = false;
  // Handlers stay installed: process managers and package-script wrappers often pass a second signal, which
  // with `once` would have killed the worker halfway through its shutdown.
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`${signal} received again; still finishing the work in flight`);
      return;
    }
    stopping = true;
    log(`${signal} received, stopping`);
    clearInterval(keepAlive);
    // Work in flight finishes (a delivery's attempt is recorded, its lease released); past this, give up on it.
    const deadline = setTimeout(() => {
      log(
        `did not stop within ${SHUTDOWN_GRACE_MS / 1000} s; exiting (leased work is picked up again later)`,
      );
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    await loops.stop();
    await database.close();
    clearTimeout(deadline);
    log("stopped");
  };
  process.on("SIGINT", (s) => void stop(s));
  process.on("SIGTERM", (s) => void stop(s));
}

main().catch((err: unknown) => {
  process.stderr.write(`worker failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
