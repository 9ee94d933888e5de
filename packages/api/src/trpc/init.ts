import { ApiError } from "@rubricon/core";
import { initTRPC } from "@trpc/server";
import { type TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { coreContext, type RequestContext } from "../request/context";
import type { RouteMeta } from "../request/route-meta";
import { authorizeCall } from "./admission";

const t = initTRPC
  .context<RequestContext>()
  .meta<RouteMeta>()
  .create({
    errorFormatter({ shape, error }) {
      const cause = error.cause;
      if (cause instanceof ApiError) {
        // tRPC wraps any thrown error as INTERNAL_SERVER_ERROR; the body says what the error really is, as the
        // response's status does (`trpc-handler.ts`).
        const key = trpcCodeOf(cause.status);
        return {
          ...shape,
          code: TRPC_ERROR_CODES_BY_KEY[key],
          data: {
            ...shape.data,
            code: key,
            httpStatus: cause.status,
            apiError: {
              code: cause.code,
              type: cause.type,
              param: cause.param,
            },
          },
        };
      }
      return shape;
    },
  });

/** The tRPC code of an HTTP status, as tRPC maps its own codes to statuses. */
function trpcCodeOf(status: number): TRPC_ERROR_CODE_KEY {
  const byStatus: Record<number, TRPC_ERROR_CODE_KEY> = {
    400: "BAD_REQUEST",
    401: "UNAUTHORIZED",
    402: "PAYMENT_REQUIRED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_SUPPORTED",
    408: "TIMEOUT",
    409: "CONFLICT",
    412: "PRECONDITION_FAILED",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    422: "UNPROCESSABLE_CONTENT",
    429: "TOO_MANY_REQUESTS",
    499: "CLIENT_CLOSED_REQUEST",
    501: "NOT_IMPLEMENTED",
    502: "BAD_GATEWAY",
    503: "SERVICE_UNAVAILABLE",
    504: "GATEWAY_TIMEOUT",
  };
  return byStatus[status] ?? (status >= 500 ? "INTERNAL_SERVER_ERROR" : "BAD_REQUEST");
}

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Every rule of an API procedure's meta, decided by `authorizeCall` (`admission.ts`) in one middleware (each tRPC
 * middleware level copies the call's options and context, so one level instead of four is measurably cheaper on
 * hot routes).
 */
const guarded = t.middleware(async ({ ctx, meta, path, next, getRawInput }) => {
  const { principal, actor } = await authorizeCall(ctx, meta, path, getRawInput);
  // Only what this adds: next() merges it into the context (tRPC's caller and the REST runner alike), so a copy of
  // the whole context here would be copied again there.
  return next({ ctx: { principal: principal!, actor: actor!, core: coreContext(ctx) } });
});

const routeLimited = t.middleware(async ({ ctx, meta, path, next, getRawInput }) => {
  await authorizeCall(ctx, meta, path, getRawInput);
  return next();
});

/** Every API procedure: feature-flagged, authenticated, scope-, session- and plan-checked and route-limited. */
export const apiProcedure = t.procedure.use(guarded);

/** A route callers reach without credentials (e.g. device pairing); its meta's `routeLimit` still applies. */
export const publicProcedure = t.procedure.meta({ public: true }).use(routeLimited);
