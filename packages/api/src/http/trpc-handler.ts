import { ApiError } from "@rubricon/core";
import type { AnyRouter } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { RequestContext } from "../request/context";
import type { EntryPoint } from "../request/exchange";
import { admitTrpcBatch } from "../trpc/admission";
import { DEFAULT_BODY_LIMIT } from "./pipeline";

export const TRPC_PREFIX = "/api/trpc";
/** Calls the dashboard may batch into one request; each is metered as a request of its own. */
export const MAX_BATCH_CALLS = 10;

/**
 * The dashboard's tRPC endpoint: the same router as `/api/v1`, for the session cookie only (bearer credentials use
 * `/api/v1`). Procedure errors keep tRPC's wire format, which the dashboard's client reads, with the envelope's
 * `code`, `type` and `param` in their `data.apiError`; everything the pipeline refuses first is the envelope.
 */
export function createTrpcEntry(router: AnyRouter): EntryPoint {
  return {
    prefix: TRPC_PREFIX,
    async handle(ex) {
      const { req, ctx } = ex;
      const calls = ex.url.pathname
        .slice(TRPC_PREFIX.length + 1)
        .split(",")
        .filter(Boolean);
      if (calls.length > MAX_BATCH_CALLS) {
        throw new ApiError(
          "batch_too_large",
          `A batch may hold at most ${MAX_BATCH_CALLS} calls; this one has ${calls.length}.`,
        );
      }
      // A bad session or a spent budget is refused by tRPC itself (createContext throws), so the dashboard's client
      // reads it as it reads every procedure error (and sends an expired session to sign in).
      let refusal: unknown;
      const principal = await ex.principal().catch((err: unknown) => {
        refusal = err;
        return null;
      });
      const session = principal?.kind === "session" ? principal : null;
      try {
        await admitTrpcBatch(ctx, req, session, calls);
      } catch (err) {
        refusal = err;
      }
      const body =
        req.method === "GET" || req.method === "HEAD" ? undefined : await req.readBody(DEFAULT_BODY_LIMIT);
      const request = new Request(ex.url, {
        method: req.method,
        headers: [...req.headers.entries()],
        body: body && body.length > 0 ? (body as Uint8Array<ArrayBuffer>) : undefined,
        signal: req.signal,
      });
      const response = await fetchRequestHandler({
        endpoint: TRPC_PREFIX,
        req: request,
        router,
        createContext: (): RequestContext => {
          if (refusal) throw refusal;
          return { ...ctx, principal: session };
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
          if (error.code === "INTERNAL_SERVER_ERROR" && !(error.cause instanceof ApiError)) {
            console.error(`[${ex.requestId}] tRPC ${path} failed:`, error);
          }
        },
      });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return {
        status: response.status,
        headers: { ...headers, ...ex.headers },
        body: new Uint8Array(await response.arrayBuffer()),
      };
    },
  };
}
