import { ENFORCE_LIMITS, type EnforcementMode, type LimitPolicy } from "../../kernel";

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
