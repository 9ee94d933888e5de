export const ENFORCEMENT_MODES = ["enforce", "log"] as const;
export type EnforcementMode = (typeof ENFORCEMENT_MODES)[number];

/** How limits treat the work of one request, and what a log line about it names. */
export interface LimitPolicy {
  mode: EnforcementMode;
  requestId: string | null;
  /** e.g. `POST /evaluations`. */
  route: string | null;
}

/**
 * The policy outside a request (workers, scripts): limits are enforced. A request's policy travels in its
 * `CoreContext` (`limits`) to the few places that count a quota; an async-context store would carry it without
 * the parameter, but on Node 20 it hooks every promise the process makes (about 3% of a read's CPU).
 */
export const ENFORCE_LIMITS: LimitPolicy = { mode: "enforce", requestId: null, route: null };

export interface OverLimitEvent {
  /** Which limit: the team's requests per minute, a route's own limit, or a monthly quota. */
  limit: "rpm" | "route" | "quota";
  teamId?: string | null;
  userId?: string | null;
  /** The counted thing: a quota metric, a route bucket. */
  name?: string;
  max: number;
  mode: EnforcementMode;
  route?: string | null;
  requestId?: string | null;
}

/** One JSON line per over-limit request, so log mode shows who would have been refused before enforcing. */
export function logOverLimit(event: OverLimitEvent, policy: LimitPolicy = ENFORCE_LIMITS): void {
  console.warn(
    JSON.stringify({
      level: "warn",
      msg: "limit_exceeded",
      limit: event.limit,
      name: event.name,
      max: event.max,
      mode: event.mode,
      team: event.teamId ?? null,
      user: event.userId ?? null,
      route: event.route ?? policy.route,
      request_id: event.requestId ?? policy.requestId,
    }),
  );
}
