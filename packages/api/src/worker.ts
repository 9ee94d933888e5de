/**
 * What the worker process (`apps/worker`) uses, and nothing else. The package's index also exports the web app,
 * and in the production bundles the app is an entry of its own (the web process loads it lazily), so a worker
 * importing the index loaded the whole HTTP surface at start (routers, the OAuth and MCP servers): ~40 MB
 * resident for nothing.
 */
export { backgroundLoops, logLoopLine, startLoops } from "./background/loops";
export { loadEnv } from "./config/env";
export { checkWritable, loadDotEnv, runMain, startupStep } from "./config/startup";
export { openDatabase } from "./database";
export { createFileStorage } from "./files/storage";
export {
  databaseCheck,
  fileStoreCheck,
  type HealthCheck,
  listenHealth,
  redisCheck,
  redisPing,
} from "./observability/health";
export { redisRoundTrip, registerPoolGauges } from "./observability/instrument";
export { configureLogging } from "./observability/logger";
export { collectProcessMetrics } from "./observability/metrics";
export { listenMetrics, registerQueueGauges, registerWorkGauges } from "./observability/metrics-server";
export { routeConsoleTo } from "./observability/safe-error";
export { startTracing, stopTracing } from "./observability/tracing";
