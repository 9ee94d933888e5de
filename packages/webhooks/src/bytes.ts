const encoder = new TextEncoder();

export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text);
}

/**
 * The exact bytes of a request body, or undefined for anything that is not raw bytes (most often a body a
 * framework already parsed). Uses `ArrayBuffer.isView` and the brand tag rather than `instanceof`, which
 * fails for buffers made in another realm (Node's `Buffer` pool, workers, vm contexts).
 */
export function rawBytes(body: unknown): Uint8Array | undefined {
  if (typeof body === "string") return utf8(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (Object.prototype.toString.call(body) === "[object ArrayBuffer]")
    return new Uint8Array(body as ArrayBuffer);
  return undefined;
}

export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

const HEX_DIGITS = "0123456789abcdef";

export function bytesToHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += HEX_DIGITS[byte >> 4]! + HEX_DIGITS[byte & 15]!;
  return hex;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  if (code >= 97 && code <= 102) return code - 87; // a-f
  if (code >= 65 && code <= 70) return code - 55; // A-F
  return -1;
}

/**
 * Decodes hex digit by digit, so "0g" or "abc" yield undefined; `parseInt` would accept a valid prefix and a
 * lookup table would turn bad digits into NaN bytes silently.
 */
export function hexToBytes(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0) return undefined;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) {
    const high = hexValue(hex.charCodeAt(2 * i));
    const low = hexValue(hex.charCodeAt(2 * i + 1));
    if (high < 0 || low < 0) return undefined;
    out[i] = (high << 4) | low;
  }
  return out;
}

/**
 * Compares without an early exit, so the time taken does not reveal how many leading bytes of a forged
 * signature were right. A length mismatch returns at once: the length of an HMAC-SHA256 is public.
 */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
