/**
 * The web process's start and stop (`apps/web/server.ts` adds the dashboard): settings from the environment and
 * `.env`, one-line start-up failures, the app's pipeline on node:http with a graceful drain on SIGTERM.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { context } from "@opentelemetry/api";
import { ApiError } from "@rubricon/core";
import { type Env, loadEnv } from "./config/env";
import { loadDotEnv, runMain, startupStep } from "./config/startup";
import { forwardedForOf } from "./http/api-message";
import { toErrorEnvelope } from "./http/error-envelope";
import { uuidv7 } from "./http/request-id";
import { createDrainableServer, type Served, stopOnSignals } from "./http/serve";
import type { RedisSlidingWindow } from "./limits/redis-sliding-window";
import { databaseCheck, fileStoreCheck, redisCheck, serveHealth } from "./observability/health";
import { markStart, observeResponse } from "./observability/http-observer";
import { observeRedis, redisRoundTrip, registerPoolGauges } from "./observability/instrument";
import { configureLogging } from "./observability/logger";
import { collectProcessMetrics } from "./observability/metrics";
import {
  listenMetrics,
  metricsOnMainPort,
  registerInFlight,
  registerQueueGauges,
  registerWorkGauges,
} from "./observability/metrics-server";
import { type ObservedResponse, REQUEST_SPAN } from "./observability/request-context";
import { routeConsoleTo } from "./observability/safe-error";
import { startServerSpan, startTracing, stopTracing } from "./observability/tracing";

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface ServerMainOptions {
  /** Serves what the app's pipeline does not own (the dashboard's pages); made once, before the app opens. */
  fallback?: (env: Env) => Promise<NodeHandler>;
  /** Interface to listen on; all of them by default. */
  host?: string;
}

const HSTS = "max-age=31536000; includeSubDomains";

function notFound(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("Not found\n");
}

export function serverMain(opts: ServerMainOptions = {}): void {
  runMain("server", async () => {
    const envFile = loadDotEnv();
    const env = loadEnv();
    // Before the app loads, so every span has the SDK behind it; the log then carries the current trace id.
    const tracing = env.otelEndpoint
      ? await startupStep("starting traces (OTEL_EXPORTER_OTLP_ENDPOINT)", () =>
          startTracing(env, "rubricon-web"),
        )
      : false;
    const logger = configureLogging(env, "web", undefined, tracing);
    routeConsoleTo(logger);
    if (envFile) logger.info({ file: envFile }, "settings read from .env");
    const metricsOn = env.metricsPort !== undefined || env.metricsToken !== undefined;
    observeRedis(metricsOn);
    const fallback = opts.fallback
      ? await startupStep("preparing the dashboard (Next.js build)", () => opts.fallback!(env))
      : notFound;
    // Loaded once the settings are known good: a bad setting is reported without loading the whole app.
    const [{ getRubricon }, { startEmbeddedWorker }] = await Promise.all([
      import("./app"),
      import("./background/loops"),
    ]);
    const app = await getRubricon();
    const loops = startEmbeddedWorker(app.services);
    const window = app.services.limits.window as Partial<RedisSlidingWindow>;
    const checks = [
      databaseCheck(app.database),
      ...(window.redis ? [redisCheck(() => redisRoundTrip("ping", () => window.redis!.ping()))] : []),
      fileStoreCheck(env, app.services.storage),
    ];
    const hsts = env.baseUrl.startsWith("https://");
    const forwardedFor = forwardedForOf(env.trustedProxyCount);
    const handle: NodeHandler = (req, res) => {
      // Browsers that reached the site over https keep to it (the API's answers carry the same header).
      if (hsts) res.setHeader("Strict-Transport-Security", HSTS);
      if (app.owns((req.url ?? "/").split("?", 1)[0]!)) app.handleNode(req, res, forwardedFor);
      else {
        // Pages get a request id as the API's answers do: in the response header and the request's log line.
        res.setHeader("X-Request-Id", uuidv7());
        fallback(req, res);
      }
    };
    // Traces off, requests go straight to the handler: no span, no context switch.
    const traced: NodeHandler = (req, res) => {
      const started = startServerSpan(req);
      if (!started) return handle(req, res);
      (res as ObservedResponse)[REQUEST_SPAN] = started.span;
      context.with(started.ctx, () => handle(req, res));
    };
    const metricsHere = env.metricsToken ? metricsOnMainPort(env.metricsToken) : undefined;
    const served: Served = createDrainableServer(
      (req, res) => {
        const url = req.url ?? "/";
        if (metricsHere && url.startsWith("/metrics") && metricsHere(req, res)) return;
        if (
          (url.startsWith("/healthz") || url.startsWith("/readyz")) &&
          serveHealth(req, res, checks, served.draining)
        )
          return;
        (tracing ? traced : handle)(req, res);
      },
      {
        shutdownTimeoutMs: env.shutdownTimeoutMs,
        log: (msg, fields) => logger.info(fields ?? {}, msg),
        onStart: (_req, res) => markStart(res),
        answerStuck: (_req, res) => {
          const requestId = uuidv7();
          const error = new ApiError(
            "server_stopping",
            "The server stopped before this request could finish. Retry it; another instance will answer.",
          );
          res.writeHead(503, {
            "Content-Type": "application/json; charset=utf-8",
            "Retry-After": "1",
            "X-Request-Id": requestId,
          });
          res.end(JSON.stringify(toErrorEnvelope(error, requestId, env.baseUrl)));
        },
        onDone: (req, res) => {
          const url = req.url ?? "";
          if (!url.startsWith("/healthz") && !url.startsWith("/readyz") && !url.startsWith("/metrics"))
            observeResponse(req, res, "web");
        },
      },
    );
    if (metricsOn) {
      collectProcessMetrics();
      registerQueueGauges(app.database.db);
      registerPoolGauges();
      registerInFlight(served.inFlight);
      if (loops) registerWorkGauges(loops.held);
    }
    if (env.metricsPort) {
      const metrics = await startupStep(`listening on METRICS_PORT ${env.metricsPort}`, () =>
        listenMetrics(env.metricsPort!, env.metricsHost),
      );
      metrics.unref();
      logger.info({ port: env.metricsPort }, `metrics on port ${env.metricsPort}`);
    }
    await startupStep(`listening on port ${env.port} (PORT)`, () =>
      listenOn(served.server, env.port, opts.host),
    );
    logger.info({ url: env.baseUrl, port: env.port }, `Rubricon ready on ${env.baseUrl} (port ${env.port})`);
    stopOnSignals(
      served,
      (msg) => logger.info(msg),
      async () => {
        await loops?.stop();
        await app.close();
        await app.database.close();
        await stopTracing();
      },
    );
  });
}

function listenOn(server: Server, port: number, host: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}
