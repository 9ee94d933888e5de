import { type Clock, systemClock } from "@rubricon/core";
import { type Database, sharedDatabase } from "@rubricon/db";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { type Env, loadEnv } from "./config/env";
import { AUTH_PREFIX, createAuthHandler } from "./http/auth-handler";
import { assertSameOrigin } from "./http/csrf";
import { resolvePrincipal } from "./http/principal";
import { uuidv7 } from "./http/request-id";
import { API_PREFIX, createRestHandler } from "./http/rest-handler";
import { RouteTable } from "./http/route-table";
import { buildOpenApiDocument } from "./openapi/document";
import { appRouter } from "./routers/index";
import type { AppServices, RequestContext } from "./trpc/context";
import { createCallerFactory } from "./trpc/init";

export const TRPC_PREFIX = "/api/trpc";

export interface Rubricon {
  services: AppServices;
  database: Database;
  /** Serves `/api/v1/*` (REST) and `/api/auth/*` (sign-in). */
  handle(req: Request): Promise<Response>;
  /** Serves `/api/trpc/*` for the dashboard (session cookie only). */
  handleTrpc(req: Request): Promise<Response>;
  openApiDocument(): Record<string, unknown>;
}

export interface RubriconOptions {
  env?: Env;
  clock?: Clock;
  database?: Database;
}

const createCaller = createCallerFactory(appRouter);

export async function createRubricon(opts: RubriconOptions = {}): Promise<Rubricon> {
  const env = opts.env ?? loadEnv();
  const database =
    opts.database ??
    (await sharedDatabase({
      url: env.databaseUrl,
      dataDir: env.databaseUrl ? undefined : `${env.dataDir}/pglite`,
      migrate: true,
    }));
  const services: AppServices = { db: database.db, env, clock: opts.clock ?? systemClock };
  const routes = new RouteTable(appRouter);
  let document: Record<string, unknown> | undefined;
  const openApiDocument = () => {
    document ??= buildOpenApiDocument(appRouter, routes, env.baseUrl);
    return document;
  };
  const rest = createRestHandler({ services, routes, createCaller, openApiDocument });
  const auth = createAuthHandler(services);

  return {
    services,
    database,
    openApiDocument,
    handle(req) {
      const { pathname } = new URL(req.url);
      if (pathname.startsWith(AUTH_PREFIX)) return auth(req);
      if (pathname === API_PREFIX || pathname.startsWith(`${API_PREFIX}/`)) return rest(req);
      return Promise.resolve(new Response("Not found", { status: 404 }));
    },
    handleTrpc(req) {
      return fetchRequestHandler({
        endpoint: TRPC_PREFIX,
        req,
        router: appRouter,
        async createContext(): Promise<RequestContext> {
          const principal = await resolvePrincipal(req, services);
          // The dashboard speaks tRPC with the session cookie only; bearer credentials use /api/v1.
          const sessionPrincipal = principal?.kind === "session" ? principal : null;
          if (sessionPrincipal && req.method !== "GET") assertSameOrigin(req, env.baseUrl);
          return { services, principal: sessionPrincipal, requestId: uuidv7(), idempotencyKey: null, response: { headers: {} } };
        },
        onError({ error, path }) {
          if (error.code === "INTERNAL_SERVER_ERROR" && !(error.cause && "status" in error.cause)) {
            console.error(`tRPC ${path} failed:`, error);
          }
        },
      });
    },
  };
}

let processApp: Promise<Rubricon> | undefined;

/** The process-wide app (one database pool), for the Next.js route handlers and the worker. */
export function getRubricon(): Promise<Rubricon> {
  processApp ??= createRubricon();
  processApp.catch(() => {
    processApp = undefined;
  });
  return processApp;
}
