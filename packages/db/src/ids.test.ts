import { describe, expect, it } from "vitest";
import { newId, newIdBody } from "./ids";

describe("ids", () => {
  it("are a typed prefix and a cuid2-shaped body", () => {
    for (let i = 0; i < 1000; i++) {
      expect(newId("evaluation")).toMatch(/^eval_[a-z][0-9a-z]{23}$/);
    }
  });

  it("do not repeat", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) seen.add(newIdBody());
    expect(seen.size).toBe(100_000);
  });

  it("use every character about equally often", () => {
    const counts = new Map<string, number>();
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      for (const ch of newIdBody().slice(1)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect(counts.size).toBe(36);
    const expected = (n * 23) / 36;
    // Five standard deviations of a binomial count either side: a biased generator lands outside.
    const sd = Math.sqrt(n * 23 * (1 / 36) * (35 / 36));
    for (const count of counts.values()) expect(Math.abs(count - expected)).toBeLessThan(5 * sd);
  });
});
