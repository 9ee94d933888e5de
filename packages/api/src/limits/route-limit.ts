import { logOverLimit } from "@rubricon/core";
import type { RequestContext } from "../request/context";
import type { RouteLimit } from "../request/route-meta";
import type { WindowState } from "../request/services";
import { rateLimitExceeded, setTighterRateLimitHeaders } from "./headers";

export type { RouteLimit } from "../request/route-meta";

/** Window entries must be unique; one tRPC batch can call the same route twice under one request id. */
let sequence = 0;

/** Counts the request against the route's window; refuses with 429 and `Retry-After` when it is full. */
export async function enforceRouteLimit(
  ctx: RequestContext,
  rule: RouteLimit,
  routeName: string,
  input?: unknown,
): Promise<void> {
  const { limits, clock } = ctx.services;
  const nowMs = clock.now().getTime();
  const subject = subjectOf(ctx, rule, input);
  // An `id` that is not one is refused by the input's schema; there is nothing to count it against.
  if (subject === null) return;
  const bucket = rule.bucket ?? routeName;
  let state: WindowState;
  try {
    state = await limits.window.hit({
      key: `route:${bucket}:${subject}`,
      limit: rule.limit,
      windowMs: rule.windowSec * 1000,
      nowMs,
      id: `${ctx.requestId}:${++sequence}`,
    });
  } catch (err) {
    limits.storeFailed(err);
    return;
  }
  setTighterRateLimitHeaders(ctx.response.headers, state);
  if (state.allowed) return;
  if (limits.mode === "log") {
    logOverLimit({
      limit: "route",
      name: bucket,
      userId: ctx.principal?.userId ?? null,
      max: rule.limit,
      mode: "log",
      route: ctx.route ?? null,
      requestId: ctx.requestId,
    });
    return;
  }
  const per = subject.startsWith("user:")
    ? "user"
    : subject.startsWith("id:")
      ? idNoun(rule)
      : "client address";
  throw rateLimitExceeded(
    state,
    nowMs,
    `Too many requests to this route: at most ${rule.limit} every ${rule.windowSec} seconds per ${per}.`,
  );
}

function subjectOf(ctx: RequestContext, rule: RouteLimit, input: unknown): string | null {
  if (rule.key === "id") {
    const id = (input as { id?: unknown } | null | undefined)?.id;
    return typeof id === "string" && id.length > 0 && id.length <= 100 ? `id:${id}` : null;
  }
  // A per-user limit on a route a caller reached without credentials falls back to the address.
  return rule.key === "user" && ctx.principal
    ? `user:${ctx.principal.userId}`
    : `ip:${ctx.clientIp ?? "unknown"}`;
}

function idNoun(rule: RouteLimit): string {
  return rule.noun ?? "resource";
}
