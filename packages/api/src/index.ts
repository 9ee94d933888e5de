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
  type RunningLoops,
  startEmbeddedWorker,
  startLoops,
} from "./background/loops";
export { type Env, loadEnv } from "./config/env";
export type { ApiRequest, ForwardedFor } from "./http/api-message";
export { listen } from "./http/node-server";
export type { Pipeline } from "./http/pipeline";
export type { Reply, ServerSentEvent } from "./http/reply";
export { API_PREFIX } from "./http/rest-handler";
export { RedisSlidingWindow } from "./limits/redis-sliding-window";
export { MemorySlidingWindow, type SlidingWindow, type WindowState } from "./limits/sliding-window";
export { type AppRouter, appRouter } from "./routers/index";
export type { Principal, RequestContext } from "./trpc/context";
export { RedirectTarget, redirectTo } from "./trpc/redirect";
