/**
 * The background process (`pnpm worker`): webhook deliveries (with `WEBHOOKS_ENABLED`), periodic maintenance and
 * the sweep that ends evaluations whose rating window closed. Deployments that run it set `EMBEDDED_WORKER=false`
 * on the web processes.
 */
import { backgroundLoops, loadEnv, startLoops } from "@rubricon/api";
import { systemClock } from "@rubricon/core";
import { sharedDatabase } from "@rubricon/db";

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
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received, stopping`);
    clearInterval(keepAlive);
    await loops.stop();
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
