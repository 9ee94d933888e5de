import type { IncomingMessage, ServerResponse } from "node:http";
import { type Clock, RunEventWaker, setPasswordHashCost, settleReplies, systemClock } from "@rubricon/core";
import type { Database, Db } from "@rubricon/db";
import type { AnyRouter } from "@trpc/server";
import { type Env, loadEnv } from "./config/env";
import { checkWritable, startupStep } from "./config/startup";
import { openDatabase } from "./database";
import { createFileStorage } from "./files/storage";
import type { ForwardedFor } from "./http/api-message";
import { createAuthEntry } from "./http/auth-handler";
import { createPipeline, type Pipeline } from "./http/pipeline";
import { createRestEntry } from "./http/rest-handler";
import { RouteTable } from "./http/route-table";
import { createShareEntry } from "./http/share-handler";
import { createStorageEntry } from "./http/storage-handler";
import { createTrpcEntry } from "./http/trpc-handler";
import { createRateLimits } from "./limits/rate-limits";
import { createMcpEntry } from "./mcp/server";
import { createOAuthEntry } from "./oauth/entry";
import { createWellKnownEntry } from "./oauth/well-known";
import { buildOpenApiDocument } from "./openapi/document";
import type { ApiRequest } from "./request/api-request";
import type { AppServices } from "./request/context";
import type { Reply } from "./request/reply";
import { appRouter } from "./routers/index";

export { openDatabase } from "./database";
export { TRPC_PREFIX } from "./http/trpc-handler";

export interface Rubricon {
  services: AppServices;
  database: Database;
  /** Whether a path is served by the app's pipeline (`/api/v1`, `/api/trpc`, `/api/auth`, `/api/share`, `/api/oauth`, `/.well-known`, `/mcp`). */
  owns(pathname: string): boolean;
  /** Serves a Web `Request` (the Next.js route handlers of `next dev`). */
  handle(req: Request): Promise<Response>;
  /** Serves a node:http request (the production server, tests, the benchmark) through the same pipeline. */
  handleNode(req: IncomingMessage, res: ServerResponse, forwardedFor: ForwardedFor): void;
  /** The pipeline's answer before it is written, for callers that write it themselves. */
  reply(req: ApiRequest): Promise<Reply>;
  openApiDocument(): Record<string, unknown>;
  /** Closes the connections the app opened besides the database (Redis); the database's owner closes it. */
  close(): Promise<void>;
}

export interface RubriconOptions {
  env?: Env;
  clock?: Clock;
  database?: Database;
  /** The router to serve; the app's own by default (tests add routes to it). */
  router?: AnyRouter;
}

/** The app's HTTP surface over `router`: every entry point in one pipeline, and the OpenAPI document. */
export function createHttpSurface(
  services: AppServices,
  router: AnyRouter = appRouter,
): { pipeline: Pipeline; openApiDocument(): Record<string, unknown> } {
  const routes = new RouteTable(router);
  let document: Record<string, unknown> | undefined;
  const openApiDocument = () => {
    document ??= buildOpenApiDocument(router, routes, services.env.baseUrl);
    return document;
  };
  const pipeline = createPipeline(services, [
    createRestEntry({ routes, openApiDocument }),
    createTrpcEntry(router),
    createAuthEntry(services),
    createShareEntry(services),
    createStorageEntry(services),
    createOAuthEntry(services),
    createWellKnownEntry(services),
    createMcpEntry(services),
  ]);
  return { pipeline, openApiDocument };
}

/** The services every request and background loop shares, for a database the caller owns. */
export async function createServices(env: Env, db: Db, clock: Clock): Promise<AppServices> {
  return {
    db,
    env,
    clock,
    limits: await startupStep(
      env.redisUrl ? "connecting to Redis (REDIS_URL)" : "setting up rate limits",
      () => createRateLimits(env, db, clock),
    ),
    runWaker: new RunEventWaker(db),
    storage: createFileStorage(env),
  };
}

export async function createRubricon(opts: RubriconOptions = {}): Promise<Rubricon> {
  const env = opts.env ?? loadEnv();
  const clock = opts.clock ?? systemClock;
  setPasswordHashCost(env.passwordHashLogN);
  // A store that cannot be written would start "ready" and fail the first upload; say so now instead.
  if (!opts.database) checkWritable(env);
  const database = opts.database ?? (await openDatabase(env));
  const services = await createServices(env, database.db, clock);
  const { pipeline, openApiDocument } = createHttpSurface(services, opts.router);

  return {
    services,
    database,
    openApiDocument,
    close: async () => {
      // An assistant reply runs to its end (at most a minute) and is stored even when its client left.
      await settleReplies();
      await services.runWaker.close();
      await services.limits.close();
    },
    owns: pipeline.owns,
    handle: pipeline.handleWeb,
    handleNode: pipeline.handleNode,
    reply: pipeline.handle,
  };
}

/**
 * Next.js bundles instrumentation and each route handler separately, so a module-level variable would exist once
 * per bundle and open the database several times in one process; a global slot is shared by all of them.
 */
const PROCESS_APP = Symbol.for("rubricon.processApp");
const processSlot = globalThis as typeof globalThis & {
  [PROCESS_APP]?: Promise<Rubricon>;
};

/** The process-wide app (one database pool), for the Next.js route handlers and the worker. */
export function getRubricon(): Promise<Rubricon> {
  let app = processSlot[PROCESS_APP];
  if (!app) {
    app = createRubricon();
    processSlot[PROCESS_APP] = app;
    app.catch(() => {
      if (processSlot[PROCESS_APP] === app) delete processSlot[PROCESS_APP];
    });
  }
  return app;
}
