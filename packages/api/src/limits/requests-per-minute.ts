import { PLAN_LIMITS } from "@rubricon/contracts";
import { logOverLimit } from "@rubricon/core";
import { RATE_LIMIT } from "../observability/metrics";
import type { Principal, RequestContext } from "../request/context";
import type { WindowState } from "../request/services";
import { rateLimitExceeded, setRateLimitHeaders } from "./headers";

export const RPM_WINDOW_MS = 60_000;

/**
 * The team's requests-per-minute budget, spent by every `/api/v1` request of a known caller and shared by all of
 * the team's keys and tokens. The dashboard (a signed-in session) is metered apart, per user at the same rate: a
 * person clicking around must not eat the budget a team's scripts rely on, nor scripts lock the dashboard out.
 * An unmetered route (whoami, usage) only reports the budget. Sets the `X-RateLimit-*` headers, which then ride
 * on every response of the request, error or not.
 */
export async function meterRequest(
  ctx: RequestContext,
  principal: Principal,
  route: { label: string; unmetered: boolean },
): Promise<void> {
  const { limits, clock } = ctx.services;
  const nowMs = clock.now().getTime();
  const team = await limits.meters.teamOf(principal);
  const teamId = team?.teamId ?? null;
  ctx.teamId = teamId;
  let state: WindowState;
  try {
    state = await limits.window.hit({
      key:
        principal.kind === "session"
          ? `rpm:session:${principal.userId}`
          : teamId
            ? `rpm:team:${teamId}`
            : `rpm:user:${principal.userId}`,
      // A user in no team can still call a few routes (whoami, creating a team): the Free budget.
      limit: team?.limits.rpm ?? PLAN_LIMITS.free.rpm,
      windowMs: RPM_WINDOW_MS,
      nowMs,
      id: ctx.requestId,
      consume: !route.unmetered,
    });
  } catch (err) {
    RATE_LIMIT.storeFailed.inc();
    limits.storeFailed(err);
    return;
  }
  setRateLimitHeaders(ctx.response.headers, state);
  if (state.allowed || route.unmetered) {
    RATE_LIMIT.allowed.inc();
    return;
  }
  if (limits.mode === "log") {
    RATE_LIMIT.logged.inc();
    logOverLimit({
      limit: "rpm",
      teamId,
      userId: principal.userId,
      max: state.limit,
      mode: "log",
      route: route.label,
      requestId: ctx.requestId,
    });
    return;
  }
  RATE_LIMIT.refused.inc();
  throw rateLimitExceeded(
    state,
    nowMs,
    `Too many requests: this team's plan allows ${state.limit} per minute. Retry after the Retry-After seconds.`,
  );
}
