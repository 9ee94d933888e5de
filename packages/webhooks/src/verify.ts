import { rawBytes, timingSafeEqual } from "./bytes";
import { DEFAULT_TOLERANCE_SEC, SIGNATURE_HEADER, SIGNATURE_NEXT_HEADER } from "./constants";
import { hmacSha256 } from "./crypto";
import { WebhookVerificationError } from "./errors";
import type { RubriconEvent } from "./events";
import { type HeadersInput, type ParsedSignature, parseSignatureHeader, readHeader } from "./header";
import { findSecretProblem } from "./secret";
import { nowSeconds, signedMessage } from "./sign";

export type RawBody = string | Uint8Array | ArrayBuffer;

/** One secret, or several while rotating: the delivery passes if any of them signed it. */
export type WebhookSecret = string | readonly string[];

export interface VerifyOptions {
  /** Largest allowed distance, in seconds, between the signature timestamp and now. Default 300. */
  toleranceSec?: number;
  /** The current time in unix seconds; for tests. */
  now?: number;
}

const RAW_BODY_HOW =
  "`await req.text()` in fetch-style handlers, " +
  '`express.raw({ type: "application/json" })` on the route in Express';

function invalidBody(body: unknown): WebhookVerificationError {
  const got = body === null ? "null" : Array.isArray(body) ? "an array" : `a value of type ${typeof body}`;
  let hint = "";
  if (typeof body === "object" && body !== null) {
    hint =
      " Pass the raw request body, not parsed JSON: parsing and serialising again changes the bytes, so " +
      `the signature could never match (${RAW_BODY_HOW}).`;
  } else if (body === undefined) {
    hint = ` No body was read (${RAW_BODY_HOW}).`;
  }
  return new WebhookVerificationError(
    "invalid_body",
    "The request body must be the raw bytes as received (a string, Uint8Array or ArrayBuffer), " +
      `but got ${got}.${hint}`,
  );
}

function bodyBytes(rawBody: unknown): Uint8Array {
  const bytes = rawBytes(rawBody);
  if (bytes === undefined) throw invalidBody(rawBody);
  if (rawBody === "[object Object]") {
    throw new WebhookVerificationError(
      "invalid_body",
      'The request body is the string "[object Object]": an object was converted to a string somewhere. ' +
        "Pass the raw request body, not parsed JSON.",
    );
  }
  return bytes;
}

function secretList(secret: unknown): string[] {
  const list: unknown[] = Array.isArray(secret) ? secret : [secret];
  if (list.length === 0) {
    throw new WebhookVerificationError("invalid_secret", "No webhook secret was given (an empty array).");
  }
  list.forEach((item, index) => {
    const label = Array.isArray(secret) ? `The webhook secret at index ${index}` : "The webhook secret";
    const problem = findSecretProblem(item, label);
    if (problem) throw new WebhookVerificationError(problem.reason, problem.message);
  });
  return list as string[];
}

function checkOptions(opts: VerifyOptions): { toleranceSec: number; now: number } {
  const toleranceSec = opts.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
  // Replay protection cannot be switched off: a negative, NaN or infinite tolerance is a bug in the caller.
  if (!Number.isFinite(toleranceSec) || toleranceSec < 0) {
    throw new RangeError(`toleranceSec must be a finite number of seconds >= 0; got ${toleranceSec}.`);
  }
  const now = opts.now ?? nowSeconds();
  if (!Number.isFinite(now)) throw new RangeError(`now must be a finite number of unix seconds; got ${now}.`);
  return { toleranceSec, now };
}

function checkTimestamp(
  headerName: string,
  parsed: ParsedSignature,
  now: number,
  toleranceSec: number,
): void {
  const age = now - parsed.timestamp;
  if (Math.abs(age) <= toleranceSec) return;
  const detail =
    age > 0
      ? `is ${age} s old (stale): a replayed delivery, or this server's clock is behind`
      : `is ${-age} s in the future: this server's clock is probably behind`;
  throw new WebhookVerificationError(
    "timestamp_outside_tolerance",
    `The ${headerName} timestamp ${detail}; the tolerance is ${toleranceSec} s.`,
  );
}

/**
 * Checks that a delivery was signed by Rubricon with one of `secret` and is recent; throws
 * `WebhookVerificationError` otherwise. `rawBody` must be the request body exactly as received.
 */
export async function verify(
  rawBody: RawBody,
  headers: HeadersInput,
  secret: WebhookSecret,
  opts: VerifyOptions = {},
): Promise<void> {
  const body = bodyBytes(rawBody);
  const secrets = secretList(secret);
  const { toleranceSec, now } = checkOptions(opts);

  const mainValue = readHeader(headers, SIGNATURE_HEADER);
  if (mainValue === undefined) {
    throw new WebhookVerificationError(
      "missing_header",
      `The ${SIGNATURE_HEADER} header is missing; check that the request comes from Rubricon and that ` +
        "proxies pass the header through.",
    );
  }
  const candidates: ParsedSignature[] = [parseSignatureHeader(SIGNATURE_HEADER, mainValue)];
  const nextValue = readHeader(headers, SIGNATURE_NEXT_HEADER);
  if (nextValue !== undefined) candidates.push(parseSignatureHeader(SIGNATURE_NEXT_HEADER, nextValue));
  checkTimestamp(SIGNATURE_HEADER, candidates[0]!, now, toleranceSec);
  if (candidates[1]) checkTimestamp(SIGNATURE_NEXT_HEADER, candidates[1], now, toleranceSec);

  // Every pair is computed and compared, so timing does not tell which secret or header matched.
  let matched = false;
  for (const candidate of candidates) {
    const message = signedMessage(candidate.timestampText, body);
    for (const key of secrets) {
      if (timingSafeEqual(await hmacSha256(key, message), candidate.v1)) matched = true;
    }
  }
  if (!matched) {
    throw new WebhookVerificationError(
      "no_matching_signature",
      "No signature matches. Either the secret is not this endpoint's (after a rotation, pass both the old " +
        "and the new one), or the body is not the exact bytes that were sent (parsing and re-serialising " +
        "JSON changes them).",
    );
  }
}

function isEventEnvelope(value: unknown): value is RubriconEvent {
  if (typeof value !== "object" || value === null) return false;
  const event = value as Record<string, unknown>;
  const data = event.data as Record<string, unknown> | null | undefined;
  return (
    event.object === "event" &&
    typeof event.id === "string" &&
    typeof event.type === "string" &&
    typeof data === "object" &&
    data !== null &&
    typeof data.object === "object" &&
    data.object !== null
  );
}

/** `verify`, then the parsed event. Switch on `event.type` and answer 2xx for types you do not handle. */
export async function constructEvent(
  rawBody: RawBody,
  headers: HeadersInput,
  secret: WebhookSecret,
  opts: VerifyOptions = {},
): Promise<RubriconEvent> {
  await verify(rawBody, headers, secret, opts);
  const text = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBytes(rawBody));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isEventEnvelope(parsed)) {
    throw new WebhookVerificationError(
      "invalid_body",
      "The signature is valid but the body is not a Rubricon event " +
        '(a JSON object with object: "event", id, type and data.object).',
    );
  }
  return parsed;
}
