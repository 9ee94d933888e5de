import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  generateTestHeader,
  SIGNATURE_HEADER,
  SIGNATURE_NEXT_HEADER,
  sign,
  signatureHeaders,
  verify,
} from "../src";
import { BODY, NEW_SECRET, NOW, SECRET } from "./fixtures";

/** The reference implementation: Node's own HMAC, used only here to check the Web Crypto one. */
function nodeSignature(payload: string | Uint8Array, secret: string, timestamp: number): string {
  return createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(Buffer.concat([Buffer.from(`${timestamp}.`, "utf8"), Buffer.from(payload)]))
    .digest("hex");
}

describe("sign", () => {
  it("matches node:crypto HMAC-SHA256 over `<t>.<body>`, keyed with the whole secret", async () => {
    const payloads: (string | Uint8Array)[] = [
      BODY,
      "",
      "{}",
      "ünïcödé ✓ 🚀",
      new Uint8Array([0, 255, 128, 10]),
      new TextEncoder().encode(BODY),
    ];
    for (const payload of payloads) {
      const result = await sign(payload, SECRET, { timestamp: NOW });
      expect(result.signature).toBe(nodeSignature(payload, SECRET, NOW));
      expect(result.signature).toMatch(/^[0-9a-f]{64}$/);
      expect(result.timestamp).toBe(NOW);
      expect(result.header).toBe(`t=${NOW},v1=${result.signature}`);
    }
  });

  it("keys with the prefix included", async () => {
    const { signature } = await sign(BODY, SECRET, { timestamp: NOW });
    expect(signature).not.toBe(nodeSignature(BODY, SECRET.slice("whsec_".length), NOW));
  });

  it("defaults the timestamp to now, in whole seconds", async () => {
    const before = Math.floor(Date.now() / 1000);
    const { timestamp } = await sign(BODY, SECRET);
    expect(Number.isInteger(timestamp)).toBe(true);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it("refuses bad secrets, timestamps and object payloads", async () => {
    await expect(sign(BODY, `${SECRET}\n`)).rejects.toThrow(/ends with a newline/);
    await expect(sign(BODY, "secret")).rejects.toThrow(/whsec_/);
    await expect(sign(BODY, SECRET, { timestamp: 1.5 })).rejects.toBeInstanceOf(RangeError);
    await expect(sign(BODY, SECRET, { timestamp: -1 })).rejects.toBeInstanceOf(RangeError);
    await expect(sign({ a: 1 } as unknown as string, SECRET)).rejects.toThrow(/not an object/);
  });
});

describe("signatureHeaders", () => {
  it("sends only Service-Signature outside a rotation", async () => {
    const headers = await signatureHeaders(BODY, { secret: SECRET, timestamp: NOW });
    expect(headers).toEqual({ [SIGNATURE_HEADER]: `t=${NOW},v1=${nodeSignature(BODY, SECRET, NOW)}` });
    expect(await signatureHeaders(BODY, { secret: SECRET, previousSecret: null, timestamp: NOW })).toEqual(
      headers,
    );
  });

  it("in a rotation signs the main header with the old secret, Next with the new one, same t", async () => {
    const headers = await signatureHeaders(BODY, {
      secret: NEW_SECRET,
      previousSecret: SECRET,
      timestamp: NOW,
    });
    expect(headers).toEqual({
      [SIGNATURE_HEADER]: `t=${NOW},v1=${nodeSignature(BODY, SECRET, NOW)}`,
      [SIGNATURE_NEXT_HEADER]: `t=${NOW},v1=${nodeSignature(BODY, NEW_SECRET, NOW)}`,
    });
  });

  it("uses one timestamp for both headers when none is given", async () => {
    const headers = await signatureHeaders(BODY, { secret: NEW_SECRET, previousSecret: SECRET });
    const t = (value: string | undefined) => /^t=(\d+),/.exec(value ?? "")?.[1];
    expect(t(headers[SIGNATURE_HEADER])).toBeDefined();
    expect(t(headers[SIGNATURE_NEXT_HEADER])).toBe(t(headers[SIGNATURE_HEADER]));
  });

  it("checks the previous secret too", async () => {
    await expect(
      signatureHeaders(BODY, { secret: NEW_SECRET, previousSecret: ` ${SECRET}` }),
    ).rejects.toThrow(/previous signing secret starts with a space/);
  });
});

describe("generateTestHeader", () => {
  it("produces a Service-Signature value that verify accepts", async () => {
    const header = await generateTestHeader({ payload: BODY, secret: SECRET });
    await expect(verify(BODY, { [SIGNATURE_HEADER]: header }, SECRET)).resolves.toBeUndefined();
  });

  it("takes a fixed timestamp", async () => {
    const header = await generateTestHeader({ payload: BODY, secret: SECRET, timestamp: NOW });
    expect(header).toBe(`t=${NOW},v1=${nodeSignature(BODY, SECRET, NOW)}`);
  });
});
