import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { allPass, atLeast, atMost, below, info, writeFigures } from "./figures";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("bench figures", () => {
  it("judge a figure against its target, and leave one without a target unjudged", () => {
    expect(atMost("first read", 200, "ms", 200)).toEqual({
      name: "first read",
      value: 200,
      unit: "ms",
      target: "<= 200 ms",
      pass: true,
    });
    expect(atMost("first read", 200.5, "ms", 200).pass).toBe(false);
    expect(below("p99", 200, "ms", 200).pass).toBe(false);
    expect(atLeast("ratio", 0.849, "", 0.85)).toMatchObject({ target: ">= 0.85", pass: false });
    expect(info("p50", 1.23456, "ms")).toEqual({
      name: "p50",
      value: 1.235,
      unit: "ms",
      target: null,
      pass: null,
    });
    expect(allPass([info("a", 1, ""), atLeast("b", 1, "", 1)])).toBe(true);
    expect(allPass([info("a", 1, ""), atLeast("b", 0, "", 1)])).toBe(false);
  });

  it("write results/<section>.json as { figures } with the section's detail beside them", () => {
    const dir = mkdtempSync(join(tmpdir(), "bench-figures-"));
    dirs.push(dir);
    const path = writeFigures("ratings", [atMost("first read", 150, "ms", 200)], { ratings: 100_000 }, dir);
    expect(path).toBe(join(dir, "ratings.json"));
    const written = JSON.parse(readFileSync(path, "utf8"));
    expect(written.figures).toEqual([
      { name: "first read", value: 150, unit: "ms", target: "<= 200 ms", pass: true },
    ]);
    expect(written.ratings).toBe(100_000);
  });
});
