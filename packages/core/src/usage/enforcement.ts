import { AsyncLocalStorage } from "node:async_hooks";

export const ENFORCEMENT_MODES = ["enforce", "log"] as const;
export type EnforcementMode = (typeof ENFORCEMENT_MODES)[number];

/** How limits treat the work of one request, and what a log line about it names. */
export interface LimitPolicy {
  mode: EnforcementMode;
  requestId: string | null;
  /** e.g. `POST /evaluations`. */
  route: string | null;
}

const DEFAULT_POLICY: LimitPolicy = { mode: "enforce", requestId: null, route: null };
const storage = new AsyncLocalStorage<LimitPolicy>();

/**
 * Runs `fn` under a request's limit policy. Quotas are counted deep inside domain transactions (ratings,
 * evaluations, autouser runs); carrying the policy with the request, rather than as a parameter, lets every
 * counting site honour the deployment's mode without each caller threading it through.
 */
export function withLimitPolicy<T>(policy: LimitPolicy, fn: () => T): T {
  return storage.run(policy, fn);
}

/** The policy of the running request; outside a request (workers, scripts) limits are enforced. */
export function currentLimitPolicy(): LimitPolicy {
  return storage.getStore() ?? DEFAULT_POLICY;
}

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
export function logOverLimit(event: OverLimitEvent): void {
  const policy = currentLimitPolicy();
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
