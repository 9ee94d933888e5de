import { hexToBytes } from "./bytes";
import { WebhookVerificationError } from "./errors";

/** A Fetch `Headers` (Next.js, Hono, Bun, Deno, Workers) or anything else with a case-insensitive `get`. */
export interface HeadersLike {
  get(name: string): string | null;
}

/** Plain objects such as Node's and Express's `req.headers`; names are matched case-insensitively. */
export type HeadersRecord = Record<string, string | readonly string[] | undefined>;

export type HeadersInput = HeadersLike | HeadersRecord;

/**
 * Repeated headers are joined with "," like `Headers.get` does, so a header sent twice shows up as duplicate
 * `t`/`v1` entries and is refused rather than one copy silently winning.
 */
export function readHeader(headers: HeadersInput, name: string): string | undefined {
  if (typeof headers !== "object" || headers === null) return undefined;
  if (typeof (headers as HeadersLike).get === "function") {
    return (headers as HeadersLike).get(name) ?? undefined;
  }
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as HeadersRecord)) {
    if (key.toLowerCase() !== wanted || value === undefined || value === null) continue;
    if (Array.isArray(value)) values.push(...value.map(String));
    else values.push(String(value));
  }
  return values.length === 0 ? undefined : values.join(",");
}

export interface ParsedSignature {
  /** The timestamp exactly as sent: the signed string starts with it, so it must not be re-formatted. */
  timestampText: string;
  timestamp: number;
  v1: Uint8Array;
}

const SHA256_BYTES = 32;

/**
 * Exactly one `t` and one `v1`; other well-formed `key=value` entries are skipped so that a future signature
 * scheme can be sent alongside `v1` without breaking existing receivers.
 */
export function parseSignatureHeader(headerName: string, value: string): ParsedSignature {
  const malformed = (detail: string) =>
    new WebhookVerificationError(
      "malformed_header",
      `The ${headerName} header is malformed (${detail}); expected "t=<unix seconds>,v1=<hex>".`,
    );
  const timestamps: string[] = [];
  const signatures: string[] = [];
  for (const rawPart of value.split(",")) {
    const part = rawPart.trim();
    const eq = part.indexOf("=");
    if (eq <= 0) throw malformed(part === "" ? "empty entry" : "an entry is not key=value");
    const key = part.slice(0, eq).trim();
    const entry = part.slice(eq + 1).trim();
    if (key === "t") timestamps.push(entry);
    else if (key === "v1") signatures.push(entry);
  }
  if (timestamps.length !== 1) {
    throw malformed(timestamps.length === 0 ? "no t" : `${timestamps.length} t entries, expected one`);
  }
  if (signatures.length !== 1) {
    throw malformed(signatures.length === 0 ? "no v1" : `${signatures.length} v1 entries, expected one`);
  }
  const timestampText = timestamps[0]!;
  // 15 digits keeps the value an exact integer and is far beyond any real clock.
  if (!/^\d{1,15}$/.test(timestampText)) throw malformed("t is not a whole number of seconds");
  const v1 = hexToBytes(signatures[0]!);
  if (v1 === undefined) throw malformed("v1 is not valid hex");
  if (v1.length !== SHA256_BYTES) throw malformed(`v1 must be ${SHA256_BYTES * 2} hex characters`);
  return { timestampText, timestamp: Number(timestampText), v1 };
}

export function formatSignatureHeader(timestamp: number, signatureHex: string): string {
  return `t=${timestamp},v1=${signatureHex}`;
}
