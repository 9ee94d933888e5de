import { ApiError } from "@rubricon/core";
import type { Principal } from "../request/context";

/** Event streams one credential may hold open at once, in one process. */
export const STREAMS_PER_CREDENTIAL = 10;
/** Event streams one team's credentials may hold open at once, in one process. */
export const STREAMS_PER_TEAM = 25;
/** What a refused stream is told to wait: streams end when their clients go, not on a clock. */
const RETRY_AFTER_SECONDS = 5;

const open = new Map<string, number>();

function credentialOf(principal: Principal | null): string {
  if (!principal) return "anonymous";
  switch (principal.kind) {
    case "api_key":
      return `key:${principal.keyId}`;
    case "oauth":
      return `oauth:${principal.clientId ?? "-"}:${principal.userId}`;
    default:
      return `user:${principal.userId}`;
  }
}

function teamOf(principal: Principal | null, input: Record<string, unknown>): string | null {
  if (principal && "teamId" in principal && principal.teamId) return principal.teamId;
  return typeof input.teamId === "string" ? input.teamId : null;
}

/**
 * Holds one of the caller's stream slots until `release` (called once the stream ends, however it ends). Each open
 * stream holds a connection and a poller, so a credential, and a team, may hold only so many; past that the answer
 * is 429 `rate_limit_exceeded` with `Retry-After`, in the error envelope.
 */
export function acquireStreamSlot(principal: Principal | null, input: Record<string, unknown>): () => void {
  const team = teamOf(principal, input);
  const keys: [string, number, string][] = [
    [`credential:${credentialOf(principal)}`, STREAMS_PER_CREDENTIAL, "credential"],
    ...(team ? [[`team:${team}`, STREAMS_PER_TEAM, "team"] as [string, number, string]] : []),
  ];
  for (const [key, cap, whose] of keys) {
    if ((open.get(key) ?? 0) >= cap) {
      throw new ApiError(
        "rate_limit_exceeded",
        `Too many open event streams: at most ${cap} at once per ${whose}. Close one (or reuse one stream for several consumers) and try again.`,
        {
          headers: { "Retry-After": String(RETRY_AFTER_SECONDS) },
          details: { openStreamsLimit: cap, per: whose },
        },
      );
    }
  }
  for (const [key] of keys) open.set(key, (open.get(key) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const [key] of keys) {
      const left = (open.get(key) ?? 1) - 1;
      if (left <= 0) open.delete(key);
      else open.set(key, left);
    }
  };
}
