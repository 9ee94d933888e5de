import { describe, expect, it } from "vitest";
import { BoundedMap } from "./bounded-map";

describe("BoundedMap", () => {
  it("keeps at most its bound, dropping the least recently used", () => {
    const map = new BoundedMap<string, number>(3);
    for (const [k, v] of [
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ] as const)
      map.set(k, v);
    expect(map.get("a")).toBe(1); // a is now the most recent
    map.set("d", 4);
    expect(map.size).toBe(3);
    expect(map.get("b")).toBeUndefined();
    expect([...map].map(([k]) => k)).toEqual(["c", "a", "d"]);
  });

  it("keeps the order exact when the newest key is read, set or deleted again", () => {
    const map = new BoundedMap<string, number>(3);
    map.set("a", 1);
    map.set("b", 2);
    expect(map.get("b")).toBe(2);
    map.set("b", 20);
    expect(map.get("a")).toBe(1); // a moves past b
    expect(map.get("a")).toBe(1);
    map.set("c", 3);
    map.set("d", 4); // b is the least recently used
    expect([...map].map(([k]) => k)).toEqual(["a", "c", "d"]);
    map.delete("d");
    map.set("e", 5);
    map.set("d", 6); // a goes
    expect([...map]).toEqual([
      ["c", 3],
      ["e", 5],
      ["d", 6],
    ]);
  });

  it("stays bounded under a stream of distinct keys", () => {
    const map = new BoundedMap<number, number>(1000);
    for (let i = 0; i < 100_000; i++) map.set(i, i);
    expect(map.size).toBe(1000);
    expect(map.get(99_999)).toBe(99_999);
    expect(map.get(0)).toBeUndefined();
  });
});
