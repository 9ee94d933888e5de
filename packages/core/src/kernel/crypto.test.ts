import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  hashPassword,
  needsRehash,
  randomToken,
  setPasswordHashCost,
  sha256Hex,
  unmatchableHash,
  verifyPassword,
} from "./crypto";

describe("password hashing", () => {
  it("uses scrypt at OWASP's cost by default (N=2^17, r=8, p=1) and verifies what it made", async () => {
    const stored = await hashPassword("correct horse battery");
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await verifyPassword("correct horse battery", stored)).toBe(true);
    expect(await verifyPassword("correct horse batter", stored)).toBe(false);
    expect(needsRehash(stored)).toBe(false);
    expect(unmatchableHash()).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(await verifyPassword("", unmatchableHash())).toBe(false);
  }, 30_000);

  it("tells a hash made at another cost, and still verifies it", async () => {
    setPasswordHashCost(12);
    try {
      const cheap = await hashPassword("pw");
      setPasswordHashCost(13);
      expect(needsRehash(cheap)).toBe(true);
      expect(await verifyPassword("pw", cheap)).toBe(true);
    } finally {
      setPasswordHashCost(17);
    }
  });

  it("refuses stored parameters that would ask for absurd memory", async () => {
    expect(await verifyPassword("pw", "scrypt$1073741824$8$1$AAAA$AAAA")).toBe(false);
    expect(await verifyPassword("pw", "bcrypt$x")).toBe(false);
  });
});

describe("sha256Hex", () => {
  it("is the SHA-256 digest in lowercase hex, as stored for every API key", () => {
    // The NIST test vector for "abc".
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    for (const value of ["", "rk_live_0123456789abcdef", "ünïcødé ✓", "x".repeat(10_000)]) {
      expect(sha256Hex(value)).toBe(createHash("sha256").update(value).digest("hex"));
    }
  });
});

describe("randomToken", () => {
  it("answers distinct URL-safe tokens of the bytes asked for, across refills of its pool", () => {
    const seen = new Set<string>();
    let zeroBytes = 0;
    let total = 0;
    // 32 and 18 bytes do not divide the 4 KiB pool: tokens straddle a refill's boundary on the way.
    for (let i = 0; i < 600; i++) {
      const bytes = i % 2 === 0 ? 32 : 18;
      const token = randomToken(bytes);
      expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
      const decoded = Buffer.from(token, "base64url");
      expect(decoded.length).toBe(bytes);
      for (const b of decoded) if (b === 0) zeroBytes++;
      total += bytes;
      seen.add(token);
    }
    expect(seen.size).toBe(600);
    // Random bytes are zero about once in 256; a token read after the pool was zeroed would be all zeros.
    expect(zeroBytes / total).toBeLessThan(0.02);
    expect(Buffer.from(randomToken(5000), "base64url").length).toBe(5000);
  });
});
