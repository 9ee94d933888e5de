/**
 * The background process (`pnpm worker`): webhook deliveries (with `WEBHOOKS_ENABLED`), periodic maintenance and
 * the sweep that ends evaluations whose rating window closed. Deployments that run it set `EMBEDDED_WORKER=false`
 * on the web processes.
 */
import {
  backgroundLoops,
  checkWritable,
  collectProcessMetrics,
  configureLogging,
  createFileStorage,
  databaseCheck,
  fileStoreCheck,
  type HealthCheck,
  listenHealth,
  listenMetrics,
  loadDotEnv,
  loadEnv,
  logLoopLine,
  openDatabase,
  redisCheck,
  redisPing,
  redisRoundTrip,
  registerPoolGauges,
  registerQueueGauges,
  registerWorkGauges,
  routeConsoleTo,
  runMain,
  startLoops,
  startTracing,
  startupStep,
  stopTracing,
} from "@rubricon/api/worker";
import { systemClock } from "@rubricon/core";

runMain("worker", async () => {
  const envFile = loadDotEnv();
  const env = loadEnv();
  const tracing = env.otelEndpoint
    ? await startupStep("starting traces (OTEL_EXPORTER_OTLP_ENDPOINT)", () =>
        startTracing(env, "rubricon-worker"),
      )
    : false;
  const logger = configureLogging(env, "worker", undefined, tracing);
  routeConsoleTo(logger);
  if (envFile) logger.info({ file: envFile }, "settings read from .env");
  checkWritable(env);
  const database = await openDatabase(env);
  const storage = createFileStorage(env);
  const loops = startLoops(
    backgroundLoops({ db: database.db, env, clock: systemClock, storage }),
    logLoopLine,
  );
  let stopping = false;
  const redis = env.redisUrl ? await redisPing(env.redisUrl) : undefined;
  const checks: HealthCheck[] = [
    databaseCheck(database),
    ...(redis ? [redisCheck(() => redisRoundTrip("ping", redis.ping))] : []),
    fileStoreCheck(env, storage),
  ];
  const health = env.workerHealthPort
    ? await listenHealth(env.workerHealthPort, checks, () => stopping)
    : undefined;
  if (env.metricsPort) {
    collectProcessMetrics();
    registerQueueGauges(database.db);
    registerPoolGauges();
    registerWorkGauges(loops.held);
    (await listenMetrics(env.metricsPort, env.metricsHost)).unref();
    logger.info({ port: env.metricsPort }, `metrics on port ${env.metricsPort}`);
  }
  if (health) logger.info({ port: env.workerHealthPort }, `health on port ${env.workerHealthPort}`);

  // The loops' timers are unref'd (so embedding them never holds a process open); this keeps the worker up.
  const keepAlive = setInterval(() => {}, 1 << 30);
  // Handlers stay installed: process managers and package-script wrappers often pass a second signal, which
  // with `once` would have killed the worker halfway through its shutdown.
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.info({ signal }, `${signal} received again; still finishing the work in flight`);
      return;
    }
    stopping = true;
    logger.info({ signal, timeoutMs: env.shutdownTimeoutMs }, `${signal} received, stopping`);
    clearInterval(keepAlive);
    // Work in flight finishes (a delivery's attempt is recorded, its lease released); past this, give up on it.
    const deadline = setTimeout(() => {
      logger.warn(
        `did not stop within ${env.shutdownTimeoutMs} ms; exiting (leased work is picked up again later)`,
      );
      process.exit(1);
    }, env.shutdownTimeoutMs);
    await loops.stop();
    health?.close();
    redis?.close();
    await database.close();
    await stopTracing();
    clearTimeout(deadline);
    logger.info("stopped");
    logger.flush();
  };
  process.on("SIGINT", (s) => void stop(s));
  process.on("SIGTERM", (s) => void stop(s));
  // Said once the signal handlers are in place: a stop asked for from here on is a clean one.
  logger.info({ database: database.kind }, `started (${database.kind})`);
  // Once stopping, the browser is let go while a page call of an interrupted run may still be pending; its
  // rejection is expected then, and must not turn a clean stop into a crash. Before that, it stays fatal.
  process.on("unhandledRejection", (reason) => {
    if (!stopping) throw reason;
    logger.warn({ err: reason instanceof Error ? reason.message : String(reason) }, "abandoned after stop");
  });
});
