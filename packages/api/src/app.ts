import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, type Clock, systemClock, withLimitPolicy } from "@rubricon/core";
import { type Database, sharedDatabase } from "@rubricon/db";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { type Env, loadEnv } from "./config/env";
import { type ForwardedFor, fromNodeRequest, toWebResponse, writeNodeResponse } from "./http/api-message";
import { AUTH_PREFIX, createAuthHandler } from "./http/auth-handler";
import { clientIp } from "./http/client-ip";
import { assertSameOrigin } from "./http/csrf";
import { sendWebResponse, toWebRequest } from "./http/node-server";
import { resolvePrincipal } from "./http/principal";
import { uuidv7 } from "./http/request-id";
import { API_PREFIX, createRestHandler } from "./http/rest-handler";
import { RouteTable } from "./http/route-table";
import { createShareHandler, SHARE_PREFIX } from "./http/share-handler";
import { createRateLimits } from "./limits/rate-limits";
import { buildOpenApiDocument } from "./openapi/document";
import { appRouter } from "./routers/index";
import type { AppServices, RequestContext } from "./trpc/context";
import { createCallerFactory } from "./trpc/init";

export const TRPC_PREFIX = "/api/trpc";

export interface Rubricon {
  services: AppServices;
  database: Database;
  /** Serves `/api/v1/*` (REST), `/api/auth/*` (sign-in) and `/api/share/*` (public share links). */
  handle(req: Request): Promise<Response>;
  /** As `handle`, from node:http: `/api/v1` without building Web requests and responses (see `fromNodeRequest`). */
  handleNode(req: IncomingMessage, res: ServerResponse, forwardedFor: ForwardedFor): void;
  /** Serves `/api/trpc/*` for the dashboard (session cookie only). */
  handleTrpc(req: Request): Promise<Response>;
  openApiDocument(): Record<string, unknown>;
  /** Closes the connections the app opened besides the database (Redis); the database's owner closes it. */
  close(): Promise<void>;
}

export interface RubriconOptions {
  env?: Env;
  clock?: Clock;
  database?: Database;
}

const createCaller = createCallerFactory(appRouter);

function isRestPath(pathname: string): boolean {
  return pathname === API_PREFIX || pathname.startsWith(`${API_PREFIX}/`);
}

export async function createRubricon(opts: RubriconOptions = {}): Promise<Rubricon> {
  const env = opts.env ?? loadEnv();
  const clock = opts.clock ?? systemClock;
  const database =
    opts.database ??
    (await sharedDatabase({
      url: env.databaseUrl,
      dataDir: env.databaseUrl ? undefined : `${env.dataDir}/pglite`,
      prepareStatements: env.databasePrepareStatements,
      migrate: true,
    }));
  const services: AppServices = {
    db: database.db,
    env,
    clock,
    limits: await createRateLimits(env, database.db, clock),
  };
  const routes = new RouteTable(appRouter);
  let document: Record<string, unknown> | undefined;
  const openApiDocument = () => {
    document ??= buildOpenApiDocument(appRouter, routes, env.baseUrl);
    return document;
  };
  const rest = createRestHandler({
    services,
    routes,
    createCaller,
    openApiDocument,
  });
  const auth = createAuthHandler(services);
  const share = createShareHandler(services);

  // Every handler's counted work (e.g. ratings through share links) follows the deployment's limit mode.
  const limitPolicy = (method: string, pathname: string) => ({
    mode: services.limits.mode,
    requestId: null,
    route: `${method} ${pathname}`,
  });
  const handle = (req: Request): Promise<Response> => {
    const { pathname } = new URL(req.url);
    return withLimitPolicy(limitPolicy(req.method, pathname), async () => {
      if (pathname.startsWith(AUTH_PREFIX)) return auth(req);
      if (pathname.startsWith(`${SHARE_PREFIX}/`)) return share(req);
      if (isRestPath(pathname)) return toWebResponse(await rest(req));
      return new Response("Not found", { status: 404 });
    });
  };

  return {
    services,
    database,
    openApiDocument,
    close: () => services.limits.close(),
    handle,
    handleNode(req, res, forwardedFor) {
      const pathname = (req.url ?? "/").split("?", 1)[0]!;
      const served = isRestPath(pathname)
        ? withLimitPolicy(limitPolicy(req.method ?? "GET", pathname), () =>
            rest(fromNodeRequest(req, forwardedFor)),
          ).then((response) => writeNodeResponse(res, response))
        : toWebRequest(req, forwardedFor)
            .then(handle)
            .then((response) => sendWebResponse(res, response));
      served.catch((err: unknown) => {
        console.error(err);
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      });
    },
    handleTrpc(req) {
      const requestId = uuidv7();
      const policy = { mode: services.limits.mode, requestId, route: `tRPC ${new URL(req.url).pathname}` };
      return withLimitPolicy(policy, () =>
        fetchRequestHandler({
          endpoint: TRPC_PREFIX,
          req,
          router: appRouter,
          async createContext(): Promise<RequestContext> {
            const principal = await resolvePrincipal(req, services);
            // The dashboard speaks tRPC with the session cookie only; bearer credentials use /api/v1.
            const sessionPrincipal = principal?.kind === "session" ? principal : null;
            if (sessionPrincipal && req.method !== "GET") assertSameOrigin(req, env.baseUrl);
            return {
              services,
              principal: sessionPrincipal,
              clientIp: clientIp(req.headers, env.trustedProxyCount),
              requestId,
              idempotencyKey: null,
              response: { headers: {} },
            };
          },
          // tRPC would answer 500 for any thrown ApiError; the dashboard and proxies should see its real status.
          responseMeta({ errors, data }) {
            if (errors.length === 0 || errors.length !== data.length) return {};
            const statuses = new Set(
              errors.map((e) => (e.cause instanceof ApiError ? e.cause.status : undefined)),
            );
            const [status] = statuses;
            return statuses.size === 1 && status !== undefined ? { status } : {};
          },
          onError({ error, path }) {
            if (error.code === "INTERNAL_SERVER_ERROR" && !(error.cause && "status" in error.cause)) {
              console.error(`tRPC ${path} failed:`, error);
            }
          },
        }),
      );
    },
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
