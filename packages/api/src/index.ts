export {
  createHttpSurface,
  createRubricon,
  createServices,
  getRubricon,
  type Rubricon,
  type RubriconOptions,
  TRPC_PREFIX,
} from "./app";
export { autouserRunLoop } from "./background/autouser-runs";
export {
  type BackgroundLoop,
  backgroundLoops,
  type LoopLog,
  logLoopLine,
  type RunningLoops,
  startEmbeddedWorker,
  startLoops,
} from "./background/loops";
export { type Env, loadEnv } from "./config/env";
export {
  checkWritable,
  describeStartupError,
  loadDotEnv,
  runMain,
  StartupError,
  startupStep,
} from "./config/startup";
export { openDatabase } from "./database";
export { createFileStorage } from "./files/storage";
export type { ForwardedFor } from "./http/api-message";
export { listen } from "./http/node-server";
export type { Pipeline } from "./http/pipeline";
export { API_PREFIX } from "./http/rest-parse";
export { createDrainableServer, type Served, stopOnSignals } from "./http/serve";
export { RedisSlidingWindow } from "./limits/redis-sliding-window";
export { MemorySlidingWindow } from "./limits/sliding-window";
export {
  databaseCheck,
  fileStoreCheck,
  type HealthCheck,
  listenHealth,
  readiness,
  redisCheck,
  redisPing,
  serveHealth,
} from "./observability/health";
export { redisRoundTrip, registerPoolGauges } from "./observability/instrument";
export { configureLogging, type Logger, log } from "./observability/logger";
export { collectProcessMetrics, registry as metricsRegistry } from "./observability/metrics";
export { listenMetrics, registerQueueGauges, registerWorkGauges } from "./observability/metrics-server";
export { routeConsoleTo } from "./observability/safe-error";
export { startTracing, stopTracing, tracingOn } from "./observability/tracing";
export type { ApiRequest } from "./request/api-request";
export type { Principal, RequestContext } from "./request/context";
export type { Reply, ServerSentEvent } from "./request/reply";
export type { SlidingWindow, WindowState } from "./request/services";
export { type AppRouter, appRouter } from "./routers/index";
export { type ServerMainOptions, serverMain } from "./server-main";
export { RedirectTarget, redirectTo } from "./trpc/redirect";
