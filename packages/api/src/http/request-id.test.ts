import { describe, expect, it } from "vitest";
import { uuidv7 } from "./request-id";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("uuidv7", () => {
  it("has the uuid layout, version 7 and the RFC 9562 variant", () => {
    for (let i = 0; i < 200; i++) expect(uuidv7()).toMatch(UUID_V7);
  });

  it("carries the unix milliseconds in its first 48 bits", () => {
    const at = Date.UTC(2026, 10, 22, 10, 0, 0, 123);
    const hex = uuidv7(at).replace(/-/g, "").slice(0, 12);
    expect(Number.parseInt(hex, 16)).toBe(at);
    expect(Number.parseInt(uuidv7(0).replace(/-/g, "").slice(0, 12), 16)).toBe(0);
    expect(uuidv7(2 ** 48 - 1).startsWith("ffffffff-ffff-7")).toBe(true);
  });

  it("sorts by time as text", () => {
    const base = Date.now();
    const ids = Array.from({ length: 50 }, (_, i) => uuidv7(base + i * 7));
    expect([...ids].sort()).toEqual(ids);
    expect(uuidv7(base + 1) > uuidv7(base)).toBe(true);
  });

  it("is unique within one millisecond", () => {
    const at = Date.now();
    const ids = new Set(Array.from({ length: 1000 }, () => uuidv7(at)));
    expect(ids.size).toBe(1000);
  });
});
