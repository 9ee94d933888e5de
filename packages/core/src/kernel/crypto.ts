import * as nodeCrypto from "node:crypto";
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  randomBytes,
  randomFillSync,
  scrypt,
  timingSafeEqual,
} from "node:crypto";

/** Node's one-shot digest (Node 20.12+): no Hash object per call, as an API key costs on every request. */
const oneShotHash = (nodeCrypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string })
  .hash;

export function sha256Hex(value: string): string {
  if (oneShotHash) return oneShotHash("sha256", value, "hex");
  return createHash("sha256").update(value).digest("hex");
}

/**
 * Tokens draw from 4 KiB of the CSPRNG's bytes at a time, as Node's `randomUUID` does: one call into it per
 * token cost about ten times the token. Each byte serves one token and is zeroed once read.
 */
const TOKEN_POOL_BYTES = 4096;
const tokenPool = Buffer.alloc(TOKEN_POOL_BYTES);
let tokenOffset = TOKEN_POOL_BYTES;

/** URL-safe random text with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  if (bytes > TOKEN_POOL_BYTES) return randomBytes(bytes).toString("base64url");
  if (tokenOffset + bytes > TOKEN_POOL_BYTES) {
    randomFillSync(tokenPool);
    tokenOffset = 0;
  }
  const start = tokenOffset;
  tokenOffset += bytes;
  const token = tokenPool.toString("base64url", start, tokenOffset);
  tokenPool.fill(0, start, tokenOffset);
  return token;
}

/**
 * scrypt at OWASP's current guidance (N=2^17, r=8, p=1: 128 MiB and a few hundred milliseconds per hash). The cost
 * is process-wide and set once at start (`setPasswordHashCost`); tests lower it, and a hash made at another cost
 * is rehashed at the next successful sign-in (`needsRehash`).
 */
const scryptParams = { N: 2 ** 17, r: 8, p: 1, keylen: 32 };
/** Node refuses scrypt above 32 MiB unless told; 128 * N * r bytes are needed, with room to spare. */
const maxmemFor = (N: number, r: number) => 2 * 128 * N * r;

export function setPasswordHashCost(logN: number): void {
  scryptParams.N = 2 ** logN;
}

function scryptAsync(
  password: string,
  salt: Buffer,
  keylen: number,
  N: number,
  r: number,
  p: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keylen, { N, r, p, maxmem: maxmemFor(N, r) }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** scrypt with a random salt, stored as `scrypt$N$r$p$salt$hash` so parameters can change later. */
export async function hashPassword(password: string): Promise<string> {
  const { N, r, p, keylen } = scryptParams;
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, keylen, N, r, p);
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

/** A hash no password matches, at the current cost: verifying against it takes as long as against a real one. */
export function unmatchableHash(): string {
  const { N, r, p } = scryptParams;
  return `scrypt$${N}$${r}$${p}$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`;
}

/** Whether a stored hash was made at other parameters than the current ones. */
export function needsRehash(stored: string): boolean {
  const [alg, n, r, p] = stored.split("$");
  return (
    alg !== "scrypt" ||
    Number(n) !== scryptParams.N ||
    Number(r) !== scryptParams.r ||
    Number(p) !== scryptParams.p
  );
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, saltB64, hashB64] = stored.split("$");
  if (alg !== "scrypt" || !saltB64 || !hashB64) return false;
  const [N, R, P] = [Number(n), Number(r), Number(p)];
  // Parameters come from our own rows; bound them anyway so a bad row cannot ask for gigabytes.
  if (!(N >= 2 && N <= 2 ** 20 && R >= 1 && R <= 32 && P >= 1 && P <= 4)) return false;
  const expected = Buffer.from(hashB64, "base64");
  const actual = await scryptAsync(password, Buffer.from(saltB64, "base64"), expected.length, N, R, P);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** AES-256-GCM for secrets that must be used again (webhook signing keys, BYOK keys). */
export function encryptSecret(plaintext: string, keyHex: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(keyHex, "hex"), iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `v1.${iv.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}.${body.toString("base64url")}`;
}

export function decryptSecret(sealed: string, keyHex: string): string {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || !body) throw new Error("unrecognised sealed secret");
  const decipher = createDecipheriv("aes-256-gcm", Buffer.from(keyHex, "hex"), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}
