import type { CoreContext, LimitPolicy, StagedUpload } from "@rubricon/core";
import type { Principal } from "./principal";
import type { RouteMeta } from "./route-meta";
import type { AppServices } from "./services";

// The bottom of the request path: what a request is (its context, caller, route rules, services, reply), named by
// every layer above and importing none of them, so `limits/`, `trpc/` and `http/` import downward only (the lint
// task's `module-layers.mjs --direction-only` holds them to it). Who is calling and the shared services have files
// of their own, which the limits and background loops import without the request context.
export { actorOf, type Principal } from "./principal";
export type { AppServices } from "./services";

/** Per-request bag the transport merges into the response, error or not. */
export interface ResponseState {
  headers: Record<string, string>;
  /** Overrides the route's success status for this response (a dry run creates nothing: 200, not 201). */
  status?: number;
  /** Set by routes that answer something other than JSON (a CSV export): the body is the procedure's string. */
  raw?: { contentType: string; headers?: Record<string, string> };
}

export interface RequestContext {
  services: AppServices;
  principal: Principal | null;
  /** The caller's address as the trusted proxies report it (see `clientIp`). */
  clientIp: string | null;
  requestId: string;
  /** What log lines about the request name it, e.g. `GET /evaluations/{id}`. */
  route?: string;
  /** The route's path template (`/evaluations/{id}`): the metrics and request-log label, never a raw path. */
  template?: string;
  /** The entry point's prefix (`/api/auth`), the label when no template applies. */
  entry?: string;
  /** The team the request was metered to, for the request log. */
  teamId?: string | null;
  /** The error envelope's code when the request failed. */
  errorCode?: string;
  idempotencyKey: string | null;
  response: ResponseState;
  /**
   * The API version the request named (`Service-Version`) or its key's or token's team is pinned to; unset for a
   * caller bound to no team, who gets the newest.
   */
  apiVersion?: string;
  /** The file of a multipart upload route, streamed to a staging file by the transport before the procedure runs. */
  upload?: StagedUpload;
  /**
   * The route whose caller the transport already admitted (credentials, scope, feature; see `admission.ts`), so
   * the procedure's middleware does not decide it a second time. Compared by identity with the procedure's meta.
   */
  admitted?: RouteMeta;
}

/** The request's limit policy: the deployment's mode, named by the request's id and route. */
export function limitPolicy(ctx: RequestContext): LimitPolicy {
  return { mode: ctx.services.limits.mode, requestId: ctx.requestId, route: ctx.route ?? null };
}

/** Where a team created now starts: Free where the deployment bills, the unlimited self-hosted plan otherwise. */
export function newTeamPlan(env: { billingEnabled: boolean }): "free" | "self_hosted" {
  return env.billingEnabled ? "free" : "self_hosted";
}

export function coreContext(ctx: RequestContext): CoreContext {
  return {
    db: ctx.services.db,
    clock: ctx.services.clock,
    baseUrl: ctx.services.env.baseUrl,
    request: { id: ctx.requestId, idempotencyKey: ctx.idempotencyKey, apiVersion: ctx.apiVersion ?? null },
    limits: limitPolicy(ctx),
    newTeamPlan: newTeamPlan(ctx.services.env),
  };
}
