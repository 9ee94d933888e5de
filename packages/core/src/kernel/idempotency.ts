import { type Db, type DbOrTx, idempotencyRecords, type Tx } from "@rubricon/db";
import { and, eq, lt } from "drizzle-orm";
import { ApiError } from "./errors";

/*
 * The store behind the `Idempotency-Key` header: one row per (scope, key), claimed before the work, settled with
 * the answer in the work's transaction, released when the work fails (`runIdempotently` does all three). The
 * header's checks and the request's fingerprint are the REST layer's.
 */

/** Idempotency keys are honoured for 24 hours; after that a retry is a new request. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const WAIT_FOR_TWIN_MS = 10_000;
/**
 * How long a claim may stay in progress before a retry may take it over. The work and the key's outcome commit in
 * one transaction, so a claim this old belongs to a request that died (a process killed mid-request) and whose
 * work rolled back; no request runs this long.
 */
export const CLAIM_LEASE_MS = 60_000;
const POLL_MS = 50;

export interface StoredResponse {
  status: number;
  body: unknown;
}

export type Claim = { kind: "claimed" } | { kind: "replay"; response: StoredResponse };

/**
 * Claims (scope, key) for this request, or answers the stored response of an identical earlier one. A twin
 * still in flight is waited for, so concurrent identical requests create exactly one resource.
 */
export async function claimIdempotencyKey(
  db: Db,
  scope: string,
  key: string,
  fingerprint: string,
  now: Date,
): Promise<Claim> {
  const deadline = Date.now() + WAIT_FOR_TWIN_MS;
  for (;;) {
    await db
      .delete(idempotencyRecords)
      .where(
        and(
          eq(idempotencyRecords.scope, scope),
          eq(idempotencyRecords.key, key),
          lt(idempotencyRecords.createdAt, new Date(now.getTime() - IDEMPOTENCY_TTL_MS)),
        ),
      );
    const inserted = await db
      .insert(idempotencyRecords)
      .values({
        scope,
        key,
        requestFingerprint: fingerprint,
        state: "in_progress",
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning({ key: idempotencyRecords.key });
    if (inserted.length > 0) return { kind: "claimed" };
    const [existing] = await db
      .select()
      .from(idempotencyRecords)
      .where(and(eq(idempotencyRecords.scope, scope), eq(idempotencyRecords.key, key)))
      .limit(1);
    if (!existing) continue; // released between our insert and select: try again
    if (existing.requestFingerprint !== fingerprint) {
      throw new ApiError(
        "idempotency_key_reused",
        "This Idempotency-Key was already used with a different request; use a new key for a new request.",
        { param: "Idempotency-Key" },
      );
    }
    if (existing.state === "done")
      return {
        kind: "replay",
        response: {
          status: existing.responseStatus!,
          body: existing.responseBody,
        },
      };
    if (existing.createdAt.getTime() < now.getTime() - CLAIM_LEASE_MS) {
      const [taken] = await db
        .update(idempotencyRecords)
        .set({ createdAt: now })
        .where(
          and(
            eq(idempotencyRecords.scope, scope),
            eq(idempotencyRecords.key, key),
            eq(idempotencyRecords.state, "in_progress"),
            eq(idempotencyRecords.createdAt, existing.createdAt),
          ),
        )
        .returning({ key: idempotencyRecords.key });
      if (taken) {
        console.warn(
          JSON.stringify({
            msg: "idempotency_claim_taken_over",
            scope,
            key,
            claimed_at: existing.createdAt.toISOString(),
          }),
        );
        return { kind: "claimed" };
      }
      continue;
    }
    if (Date.now() > deadline) {
      throw new ApiError(
        "idempotency_request_in_progress",
        "A request with this Idempotency-Key is still in progress; retry shortly.",
        {
          param: "Idempotency-Key",
        },
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Forgets a claim whose request failed: it changed nothing, so a retry with the same key runs afresh. */
export async function releaseIdempotencyKey(db: DbOrTx, scope: string, key: string): Promise<void> {
  await db
    .delete(idempotencyRecords)
    .where(and(eq(idempotencyRecords.scope, scope), eq(idempotencyRecords.key, key)));
}

/** Stores a successful answer for replay, in the transaction of the work it answers. */
export async function settleIdempotencyKey(
  db: DbOrTx,
  scope: string,
  key: string,
  response: StoredResponse,
): Promise<void> {
  const where = and(eq(idempotencyRecords.scope, scope), eq(idempotencyRecords.key, key));
  await db
    .update(idempotencyRecords)
    .set({
      state: "done",
      responseStatus: response.status,
      responseBody: response.body ?? null,
    })
    .where(where);
}

/** One request under an `Idempotency-Key`: whose key it is, the key, and what the request was. */
export interface IdempotentRequest {
  scope: string;
  key: string;
  fingerprint: string;
  now: Date;
}

/** An idempotent request's answer: its own work's, or the stored one of an identical earlier request. */
export interface IdempotentAnswer {
  replayed: boolean;
  response: StoredResponse;
}

/** Carries a failed answer out of the transaction it rolls back. */
class Unsettled {
  constructor(readonly response: StoredResponse) {}
}

/**
 * Runs `work` at most once per (scope, key): claims the key, then runs the work in a transaction that also
 * settles the key with its answer, as `keep` stores it (without a secret shown once, say). The work and the key's
 * outcome commit together, so a process that dies mid-request leaves neither, and the claim's lease can pass to a
 * retry without any risk of doing the work twice. An answer of 300 or more is a failure: its transaction rolls
 * back and the key is released, so a corrected retry runs afresh. An identical earlier request's stored answer is
 * returned instead of running the work (`replayed`).
 */
export async function runIdempotently(
  db: Db,
  request: IdempotentRequest,
  work: (tx: Tx) => Promise<StoredResponse>,
  keep: (response: StoredResponse) => StoredResponse = (response) => response,
): Promise<IdempotentAnswer> {
  const { scope, key } = request;
  const claim = await claimIdempotencyKey(db, scope, key, request.fingerprint, request.now);
  if (claim.kind === "replay") return { replayed: true, response: claim.response };
  const response = await db
    .transaction(async (tx) => {
      const outcome = await work(tx);
      if (outcome.status >= 300) throw new Unsettled(outcome);
      await settleIdempotencyKey(tx, scope, key, keep(outcome));
      return outcome;
    })
    .catch(async (err: unknown) => {
      if (!(err instanceof Unsettled)) throw err;
      await releaseIdempotencyKey(db, scope, key);
      return err.response;
    });
  return { replayed: false, response };
}
