import { bytesToHex, concatBytes, rawBytes, utf8 } from "./bytes";
import { SIGNATURE_HEADER, SIGNATURE_NEXT_HEADER } from "./constants";
import { hmacSha256 } from "./crypto";
import { formatSignatureHeader } from "./header";
import { findSecretProblem } from "./secret";

export interface SignOptions {
  /** Unix seconds; defaults to now. */
  timestamp?: number;
}

export interface Signature {
  timestamp: number;
  /** Lowercase hex HMAC-SHA256 of `<timestamp>.<payload>`. */
  signature: string;
  /** The `Service-Signature` value: `t=<timestamp>,v1=<signature>`. */
  header: string;
}

export interface SignatureHeadersOptions extends SignOptions {
  /** The endpoint's current secret. */
  secret: string;
  /**
   * The secret in use before a rotation, for the 24 hours after it: `Service-Signature` stays signed with it
   * so receivers that have not switched yet keep working, and `Service-Signature-Next` carries the new one.
   */
  previousSecret?: string | null;
}

// A type literal rather than an interface, so it stays assignable to `HeadersInit` and header records.
export type SignatureHeaders = {
  "Service-Signature": string;
  "Service-Signature-Next"?: string;
};

export interface TestHeaderOptions extends SignOptions {
  payload: string | Uint8Array;
  secret: string;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** `<t>.` followed by the body bytes, without decoding them, so non-UTF-8 bodies sign exactly as sent. */
export function signedMessage(timestampText: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  return concatBytes(utf8(`${timestampText}.`), body);
}

function payloadBytes(payload: unknown): Uint8Array {
  const bytes = rawBytes(payload);
  if (bytes === undefined) {
    throw new TypeError(
      "The payload to sign must be the exact string or bytes that will be sent, not an object: " +
        "serialise it once and send that same string.",
    );
  }
  return bytes;
}

function assertSigningSecret(secret: unknown, label: string): asserts secret is string {
  const problem = findSecretProblem(secret, label);
  if (problem) throw new TypeError(problem.message);
}

function resolveTimestamp(timestamp: number | undefined): number {
  const value = timestamp ?? nowSeconds();
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(
      `The signature timestamp must be a whole, non-negative number of seconds; got ${value}.`,
    );
  }
  return value;
}

async function signBytes(body: Uint8Array, secret: string, timestamp: number): Promise<Signature> {
  const signature = bytesToHex(await hmacSha256(secret, signedMessage(String(timestamp), body)));
  return { timestamp, signature, header: formatSignatureHeader(timestamp, signature) };
}

/** Signs a payload the way Rubricon signs deliveries. */
export async function sign(
  payload: string | Uint8Array,
  secret: string,
  opts: SignOptions = {},
): Promise<Signature> {
  const body = payloadBytes(payload);
  assertSigningSecret(secret, "The signing secret");
  return signBytes(body, secret, resolveTimestamp(opts.timestamp));
}

/**
 * The signature headers of one delivery. With `previousSecret`, `Service-Signature` is signed with it and
 * `Service-Signature-Next` with `secret`; both share one timestamp.
 */
export async function signatureHeaders(
  payload: string | Uint8Array,
  opts: SignatureHeadersOptions,
): Promise<SignatureHeaders> {
  const body = payloadBytes(payload);
  assertSigningSecret(opts.secret, "The signing secret");
  const timestamp = resolveTimestamp(opts.timestamp);
  if (opts.previousSecret === undefined || opts.previousSecret === null) {
    return { [SIGNATURE_HEADER]: (await signBytes(body, opts.secret, timestamp)).header };
  }
  assertSigningSecret(opts.previousSecret, "The previous signing secret");
  const [current, next] = await Promise.all([
    signBytes(body, opts.previousSecret, timestamp),
    signBytes(body, opts.secret, timestamp),
  ]);
  return { [SIGNATURE_HEADER]: current.header, [SIGNATURE_NEXT_HEADER]: next.header };
}

/** A valid `Service-Signature` value for `payload`, to exercise your own webhook receiver in tests. */
export async function generateTestHeader(opts: TestHeaderOptions): Promise<string> {
  return (await sign(opts.payload, opts.secret, { timestamp: opts.timestamp })).header;
}
