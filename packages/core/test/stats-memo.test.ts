import { describe, expect, it } from "vitest";
import { sharedTally } from "../src/index";

describe("tallies shared by results and agreement", () => {
  it("loads one tally per evaluation and fingerprint, concurrent readers included", async () => {
    let loads = 0;
    const load = async () => ({ loaded: ++loads });
    const [a, b] = await Promise.all([
      sharedTally("eval_memo_a", "1", load),
      sharedTally("eval_memo_a", "1", load),
    ]);
    expect(a).toBe(b);
    expect(await sharedTally("eval_memo_a", "1", load)).toBe(a);
    expect(loads).toBe(1);
    expect(await sharedTally("eval_memo_a", "2", load)).toEqual({ loaded: 2 });
    expect(await sharedTally("eval_memo_a", "1", load)).toEqual({ loaded: 3 });
  });

  it("forgets a load that failed, so the next read tries again", async () => {
    await expect(
      sharedTally("eval_memo_b", "1", () => Promise.reject(new Error("connection lost"))),
    ).rejects.toThrow("connection lost");
    expect(await sharedTally("eval_memo_b", "1", async () => "loaded")).toBe("loaded");
  });

  it("keeps only the few most recent evaluations", async () => {
    let loads = 0;
    const load = async () => ++loads;
    for (let i = 0; i < 5; i++) await sharedTally(`eval_memo_c${i}`, "1", load);
    await sharedTally("eval_memo_c0", "1", load);
    expect(loads).toBe(6);
    await sharedTally("eval_memo_c4", "1", load);
    expect(loads).toBe(6);
  });
});
