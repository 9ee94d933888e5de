import { createHash } from "node:crypto";
import { ApiError } from "@rubricon/core";

// The store and its transaction are core's (`runIdempotently`); the header's rules and the fingerprint are here.
export { CLAIM_LEASE_MS, IDEMPOTENCY_TTL_MS } from "@rubricon/core";

const MAX_KEY_LENGTH = 255;

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
