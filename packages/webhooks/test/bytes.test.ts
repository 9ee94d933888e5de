import { describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes, rawBytes, timingSafeEqual } from "../src/bytes";

describe("hex", () => {
  it("round-trips every byte value, accepting either case", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const hex = bytesToHex(all);
    expect(hex).toBe(Buffer.from(all).toString("hex"));
    expect(hexToBytes(hex)).toEqual(all);
    expect(hexToBytes(hex.toUpperCase())).toEqual(all);
  });

  it("returns undefined for odd lengths and non-hex digits instead of throwing", () => {
    for (const bad of ["a", "abc", "0g", "g0", "zz", " 0", "0x", "-1", "ab\u0000", "１２"]) {
      expect(hexToBytes(bad)).toBeUndefined();
    }
    expect(hexToBytes("")).toEqual(new Uint8Array());
  });
});

describe("timingSafeEqual", () => {
  it("compares equal-length arrays by content", () => {
    expect(timingSafeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(timingSafeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]))).toBe(false);
    expect(timingSafeEqual(new Uint8Array([0, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(false);
    expect(timingSafeEqual(new Uint8Array(), new Uint8Array())).toBe(true);
  });

  it("is false for different lengths, even when one is a prefix of the other", () => {
    expect(timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3]))).toBe(false);
  });
});

describe("rawBytes", () => {
  it("takes strings, views and ArrayBuffers, and nothing else", () => {
    expect(rawBytes("é")).toEqual(new Uint8Array([0xc3, 0xa9]));
    expect(rawBytes(new DataView(new Uint8Array([1, 2, 3]).buffer, 1))).toEqual(new Uint8Array([2, 3]));
    expect(rawBytes(new Uint8Array([4, 5]).buffer)).toEqual(new Uint8Array([4, 5]));
    for (const other of [undefined, null, 1, {}, [], { type: "Buffer", data: [1] }]) {
      expect(rawBytes(other)).toBeUndefined();
    }
  });
});
