import { randomBytes } from "node:crypto";
import { ID_PREFIXES, type IdKind } from "@rubricon/contracts";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
const BODY_LENGTH = 24;

// Random bytes are drawn a kilobyte at a time: one call into the CSPRNG per ~30 ids instead of one per character.
let pool = Buffer.alloc(0);
let offset = 0;

function randomByte(): number {
  if (offset >= pool.length) {
    pool = randomBytes(1024);
    offset = 0;
  }
  return pool[offset++]!;
}

/** A uniform integer in [0, n): bytes at or above the largest multiple of n are redrawn, so no value is favoured. */
function randomBelow(n: number): number {
  const limit = 256 - (256 % n);
  for (;;) {
    const byte = randomByte();
    if (byte < limit) return byte % n;
  }
}

/**
 * An id body in cuid2's shape (24 lowercase base-36 characters, the first a letter), drawn straight from the
 * operating system's CSPRNG: about 124 random bits, so ids neither collide nor reveal time, host or sequence.
 */
export function newIdBody(): string {
  let body = ALPHABET[10 + randomBelow(26)]!;
  for (let i = 1; i < BODY_LENGTH; i++) body += ALPHABET[randomBelow(36)]!;
  return body;
}

/** The one maker of ids: a typed prefix and a random body, e.g. `eval_k3j2...`. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${newIdBody()}`;
}
