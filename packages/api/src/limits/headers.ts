import { ApiError } from "@rubricon/core";
import type { WindowState } from "../request/services";
import { retryAfterSeconds } from "./sliding-window";

const LIMIT = "X-RateLimit-Limit";
const REMAINING = "X-RateLimit-Remaining";
const RESET = "X-RateLimit-Reset";

/** `X-RateLimit-Reset` is when the oldest counted request leaves the window, in unix seconds (rounded up). */
export function setRateLimitHeaders(headers: Record<string, string>, state: WindowState): void {
  headers[LIMIT] = String(state.limit);
  headers[REMAINING] = String(state.remaining);
  headers[RESET] = String(Math.ceil(state.resetMs / 1000));
}

/**
 * A request can meet two windows (the team's per-minute budget and the route's own limit); the headers describe
 * the one with fewer requests left, the one a client must pace itself by.
 */
export function setTighterRateLimitHeaders(headers: Record<string, string>, state: WindowState): void {
  const current = headers[REMAINING];
  if (current === undefined || state.remaining <= Number(current)) setRateLimitHeaders(headers, state);
}

export function rateLimitExceeded(state: WindowState, nowMs: number, message: string): ApiError {
  return new ApiError("rate_limit_exceeded", message, {
    headers: { "Retry-After": String(retryAfterSeconds(state, nowMs)) },
  });
}
