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
