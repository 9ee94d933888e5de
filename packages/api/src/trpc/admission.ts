import { type RequiredScope, scopeGrants } from "@rubricon/contracts";
import { type Actor, ApiError } from "@rubricon/core";
import { meterRequest } from "../limits/requests-per-minute";
import { enforceRouteLimit } from "../limits/route-limit";
import type { ApiRequest } from "../request/api-request";
import { actorOf, type Principal, type RequestContext } from "../request/context";
import { assertSameOrigin } from "../request/csrf";
import type { RouteMeta } from "../request/route-meta";
import { assertStorableText } from "../request/text-input";
import { assertFeatureEnabled, assertPlanAllows } from "./gates";

/**
 * Admission: the one place that decides whether a request may reach a procedure, whichever way it came: credentials,
 * session and scope, the deployment's feature flag, the team's plan, the route's own limit, and (for the transports
 * that carry them) same-origin and the requests-per-minute budget. Each transport enters through its own function
 * below because each admits at its own moment (REST before reading the body, the dashboard's batch before tRPC
 * parses it, MCP before the tool runs), but the rules and their order live here and nowhere else. The procedure's
 * middleware (`authorizeCall`) finishes what the transport could not decide without the input (plan, route limit)
 * and decides everything itself for callers that bypass a transport (tests, in-process callers, MCP tools).
 */

function scopeFailure(scope: RequiredScope): ApiError {
  return new ApiError("missing_required_scope", `This credential lacks the required scope \`${scope}\`.`, {
    details: { requiredScope: scope },
  });
}

/**
 * Whether `principal` may call a route with this meta at all: credentials present, a session where the route
 * needs one, the route's scope for keys and tokens. Checked before a procedure runs and before an idempotent
 * replay, so a replay never answers a caller the route itself would refuse.
 */
export function assertMayCall(principal: Principal | null, meta: RouteMeta | undefined): asserts principal {
  if (!principal)
    throw new ApiError(
      "authentication_required",
      "No credentials were provided. Send `Authorization: Bearer <key>`.",
    );
  if (meta?.sessionOnly && principal.kind !== "session") {
    throw new ApiError(
      "session_required",
      "This route accepts only a signed-in session; an API key or token cannot call it.",
    );
  }
  if (meta?.scope && (principal.kind === "api_key" || principal.kind === "oauth")) {
    const missing = [meta.scope].flat().find((scope) => !scopeGrants(principal.scopes, scope));
    if (missing) throw scopeFailure(missing);
  }
}

/** Who may call, then whether the feature is on: a caller the route would refuse never learns it is off. */
function admitCaller(ctx: RequestContext, principal: Principal | null, meta: RouteMeta): void {
  if (!meta.public) assertMayCall(principal, meta);
  if (meta.feature) assertFeatureEnabled(ctx.services.env, meta.feature);
}

/**
 * A `/api/v1` request, once its route is matched and before its body is read. Order: credentials and the feature
 * flag (on a feature route), same-origin for a session, the requests-per-minute budget, credentials (everywhere
 * else). Requests refused before metering (no or bad credentials, a feature that is off) spend and report no
 * budget; a known caller lacking the route's scope is metered, then told 403.
 */
export async function admitRestRequest(
  ctx: RequestContext,
  req: ApiRequest,
  principal: Principal | null,
  route: { method: string; path: string; meta: RouteMeta },
): Promise<void> {
  const { meta } = route;
  if (meta.feature) admitCaller(ctx, principal, meta);
  if (principal?.kind === "session") assertSameOrigin(req, ctx.services.env.baseUrl);
  // From here the request is named by its route in logs and metrics; a request refused above is named by its entry.
  const label = `${route.method} ${route.path}`;
  ctx.route = label;
  ctx.template = route.path;
  if (principal) await meterRequest(ctx, principal, { label, unmetered: !!meta.unmetered });
  if (!meta.public) assertMayCall(principal, meta);
  ctx.admitted = meta;
}

/**
 * The dashboard's tRPC batch, before tRPC parses it: same-origin for a state-changing session request, then each
 * call of the batch spends the budget as a request would, under an id of its own. Credentials, scope, feature,
 * plan and route limit are decided per call by `authorizeCall`.
 */
export async function admitTrpcBatch(
  ctx: RequestContext,
  req: ApiRequest,
  session: Principal | null,
  calls: string[],
): Promise<void> {
  if (!session) return;
  if (req.method !== "GET") assertSameOrigin(req, ctx.services.env.baseUrl);
  for (const [i, call] of calls.entries()) {
    await meterRequest({ ...ctx, requestId: `${ctx.requestId}:${i}` }, session, {
      label: `tRPC ${call}`,
      unmetered: false,
    });
  }
}

/** One MCP request, its token verified: it spends the budget once, whatever tools it calls. */
export async function admitMcpRequest(ctx: RequestContext, principal: Principal): Promise<void> {
  await meterRequest(ctx, principal, { label: "POST /mcp", unmetered: false });
}

/**
 * A procedure call, from its middleware: credentials, session and scope, and the feature flag unless the transport
 * already admitted this request for this route; then the input's text, the plan (it needs the input's target
 * team) and the route's own limit. Returns the caller as the procedure sees it.
 */
export async function authorizeCall(
  ctx: RequestContext,
  meta: RouteMeta | undefined,
  path: string,
  getRawInput: () => Promise<unknown>,
): Promise<{ principal: Principal | null; actor: Actor | null }> {
  const principal = ctx.principal;
  const rules = meta ?? {};
  if (ctx.admitted !== meta) admitCaller(ctx, principal, rules);
  const actor = principal ? actorOf(principal) : null;
  const input = await getRawInput();
  // Before anything reads the input (the plan's team, a limit's id, the schema): text no field can store is the
  // caller's error, named, whatever the transport.
  assertStorableText(input);
  if (rules.plans && actor && !rules.public) await assertPlanAllows(ctx.services, actor, rules.plans, input);
  if (rules.routeLimit) await enforceRouteLimit(ctx, rules.routeLimit, path, input);
  return { principal, actor };
}
