import { createHash } from "node:crypto";
import type { AppServices } from "../request/context";
import type { WindowState } from "../request/services";
import { rateLimitExceeded } from "./headers";

/**
 * Throttles what an attacker would repeat: password guesses at sign-in and on share links, sign-ups, raters and
 * ratings made through a public share link, and forged or expired signed file links. Each
 * subject has a short window that paces a burst and a long one that makes sustained guessing slow (the back-off
 * grows from a minute to an hour). Guesses are counted only when they fail, and checked before the password is
 * hashed, so a throttled guess costs the server no scrypt work. These limits hold in `RATE_LIMIT_MODE=log` too:
 * they protect accounts, not capacity.
 */
export type AttemptKind =
  | "sign-in"
  | "sign-up"
  | "share-password"
  | "share-start"
  | "share-rating"
  | "invite-token"
  | "signed-url";

interface Rule {
  limit: number;
  windowMs: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Per subject (an account, a share link) and per client address, for each kind. */
export const ATTEMPT_RULES: Record<AttemptKind, { subject: Rule[]; address: Rule[] }> = {
  "sign-in": {
    subject: [
      { limit: 5, windowMs: MINUTE },
      { limit: 20, windowMs: HOUR },
    ],
    address: [
      { limit: 20, windowMs: MINUTE },
      { limit: 100, windowMs: HOUR },
    ],
  },
  // Every sign-up counts (it is what account enumeration would repeat); there is no subject yet.
  "sign-up": {
    subject: [],
    address: [
      { limit: 20, windowMs: MINUTE },
      { limit: 100, windowMs: HOUR },
    ],
  },
  // A share link is public: one address may not make raters or ratings without end (ballot stuffing, quota burn).
  // The subject is the link and the address together; every attempt counts.
  "share-start": {
    subject: [{ limit: 20, windowMs: HOUR }],
    address: [],
  },
  "share-rating": {
    subject: [{ limit: 300, windowMs: 10 * MINUTE }],
    address: [],
  },
  // Invite tokens carry 256 random bits, so guessing is hopeless; wrong tokens are still paced per user and address
  // so nobody can make the server look tokens up without end.
  "invite-token": {
    subject: [
      { limit: 10, windowMs: MINUTE },
      { limit: 50, windowMs: HOUR },
    ],
    address: [
      { limit: 20, windowMs: MINUTE },
      { limit: 100, windowMs: HOUR },
    ],
  },
  // File links carry an HMAC, so forging one is hopeless; bad and expired links are still paced per address so
  // nobody can make the server check signatures without end.
  "signed-url": {
    subject: [],
    address: [
      { limit: 30, windowMs: MINUTE },
      { limit: 300, windowMs: HOUR },
    ],
  },
  "share-password": {
    subject: [
      { limit: 10, windowMs: MINUTE },
      { limit: 50, windowMs: HOUR },
    ],
    address: [
      { limit: 20, windowMs: MINUTE },
      { limit: 100, windowMs: HOUR },
    ],
  },
};

let sequence = 0;

/** Subjects are hashed so that no email address or share token is written to the limit store. */
function hashed(value: string): string {
  return createHash("sha256").update(value).digest("base64url").slice(0, 22);
}

function windows(kind: AttemptKind, subject: string | null, address: string | null) {
  const rules = ATTEMPT_RULES[kind];
  return [
    ...(subject === null
      ? []
      : rules.subject.map((r) => ({ ...r, key: `guess:${kind}:s:${hashed(subject)}` }))),
    ...rules.address.map((r) => ({ ...r, key: `guess:${kind}:a:${address ?? "unknown"}` })),
  ];
}

export class AttemptThrottle {
  constructor(private readonly services: AppServices) {}

  private async hitAll(
    kind: AttemptKind,
    subject: string | null,
    address: string | null,
    requestId: string,
    consume: boolean,
  ): Promise<void> {
    const { limits, clock } = this.services;
    const nowMs = clock.now().getTime();
    let refused: WindowState | undefined;
    for (const w of windows(kind, subject, address)) {
      let state: WindowState;
      try {
        state = await limits.window.hit({
          key: `${w.key}:${w.windowMs}`,
          limit: w.limit,
          windowMs: w.windowMs,
          nowMs,
          id: `${requestId}:g${++sequence}`,
          consume,
        });
      } catch (err) {
        limits.storeFailed(err);
        return;
      }
      // Looking, a full window refuses (the longest wait wins); counting never refuses: the next check will.
      if (!consume && !state.allowed && (!refused || state.resetMs > refused.resetMs)) refused = state;
    }
    if (refused) {
      throw rateLimitExceeded(
        refused,
        nowMs,
        kind === "sign-up"
          ? "Too many sign-ups from this address; try again after the Retry-After seconds."
          : "Too many failed attempts; try again after the Retry-After seconds.",
      );
    }
  }

  /** Refuses with 429 and `Retry-After` while any window of this attempt is full; counts nothing. */
  check(kind: AttemptKind, subject: string | null, address: string | null, requestId: string): Promise<void> {
    return this.hitAll(kind, subject, address, requestId, false);
  }

  /** Counts an attempt (a failed guess, or any sign-up) in every window. */
  record(
    kind: AttemptKind,
    subject: string | null,
    address: string | null,
    requestId: string,
  ): Promise<void> {
    return this.hitAll(kind, subject, address, requestId, true);
  }

  /** For attempts that count whatever their outcome (sign-ups, raters and ratings on a link): check, then count. */
  async consume(kind: AttemptKind, subject: string | null, address: string | null, requestId: string) {
    await this.check(kind, subject, address, requestId);
    await this.record(kind, subject, address, requestId);
  }
}
