import { createHash } from "node:crypto";
import { ApiError } from "@rubricon/core";
import { type Db, idempotencyRecords } from "@rubricon/db";
import { and, eq, lt } from "drizzle-orm";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 255;
const WAIT_FOR_TWIN_MS = 10_000;
const POLL_MS = 50;

export interface StoredResponse {
  status: number;
  body: unknown;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash("sha256")
    .update(`${method} ${path}\n${canonicalJson(body ?? {})}`)
    .digest("hex");
}

export function validateIdempotencyKey(key: string): void {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new ApiError(
      "idempotency_key_invalid",
      `\`Idempotency-Key\` must be 1 to ${MAX_KEY_LENGTH} characters.`,
      {
        param: "Idempotency-Key",
      },
    );
  }
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

/**
 * Stores a successful answer for replay. Any error releases the key instead: a failed request changed nothing
 * (its transaction rolled back), so a retry with the same key, say after fixing a scope or a field, runs afresh.
 */
export async function settleIdempotencyKey(
  db: Db,
  scope: string,
  key: string,
  response: StoredResponse,
): Promise<void> {
  const where = and(eq(idempotencyRecords.scope, scope), eq(idempotencyRecords.key, key));
  if (response.status >= 300) {
    await db.delete(idempotencyRecords).where(where);
    return;
  }
  await db
    .update(idempotencyRecords)
    .set({
      state: "done",
      responseStatus: response.status,
      responseBody: response.body ?? null,
    })
    .where(where);
}
