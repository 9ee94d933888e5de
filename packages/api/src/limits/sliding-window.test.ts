import { randomBytes, randomUUID } from "node:crypto";
import { testRedisUrl } from "@rubricon/vitest-config/redis";
import { afterAll, describe, expect, it } from "vitest";
import type { SlidingWindow } from "../request/services";
import { RedisSlidingWindow } from "./redis-sliding-window";
import { MemorySlidingWindow, retryAfterSeconds } from "./sliding-window";

const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);
const MINUTE = 60_000;

/** The same behaviour holds for the in-process window and the Redis one. */
function windowContract(name: string, make: () => Promise<SlidingWindow>) {
  describe(name, () => {
    let window: SlidingWindow;
    const key = () => `test:${randomUUID()}`;
    const hit = (k: string, nowMs: number, limit = 5, consume = true) =>
      window.hit({ key: k, limit, windowMs: MINUTE, nowMs, id: randomUUID(), consume });

    afterAll(() => window?.close());

    it("accepts exactly the limit, refuses the next, and frees a slot exactly one window after the oldest", async () => {
      window = await make();
      const k = key();
      for (let i = 0; i < 5; i++) {
        const s = await hit(k, T0 + i * 1000);
        expect(s).toMatchObject({ allowed: true, limit: 5, remaining: 4 - i, resetMs: T0 + MINUTE });
      }
      const refused = await hit(k, T0 + 5000);
      expect(refused).toMatchObject({ allowed: false, remaining: 0, resetMs: T0 + MINUTE });
      expect(retryAfterSeconds(refused, T0 + 5000)).toBe(55);
      // One millisecond before the oldest leaves, still full; at that instant, one slot.
      expect((await hit(k, T0 + MINUTE - 1)).allowed).toBe(false);
      expect(retryAfterSeconds(await hit(k, T0 + MINUTE - 1), T0 + MINUTE - 1)).toBe(1);
      const freed = await hit(k, T0 + MINUTE);
      expect(freed).toMatchObject({ allowed: true, remaining: 0, resetMs: T0 + 1000 + MINUTE });
      expect((await hit(k, T0 + MINUTE + 1)).allowed).toBe(false);
      expect((await hit(k, T0 + MINUTE + 1000)).allowed).toBe(true);
    });

    it("never holds more than the limit in any window of the given length", async () => {
      window = await make();
      const k = key();
      const accepted: number[] = [];
      // Irregular traffic over three minutes: bursts and gaps.
      let t = T0;
      for (let i = 0; i < 400; i++) {
        t += [10, 250, 3000, 1, 700][i % 5]!;
        if ((await hit(k, t, 7)).allowed) accepted.push(t);
      }
      for (const start of accepted) {
        const inWindow = accepted.filter((a) => a >= start && a < start + MINUTE).length;
        expect(inWindow).toBeLessThanOrEqual(7);
      }
      // It is a window, not a trickle: every refusal had a full window behind it.
      expect(accepted.length).toBeGreaterThan(7 * 3);
    });

    it("slides: requests spread over the minute free up one by one, not all at a bucket edge", async () => {
      window = await make();
      const k = key();
      for (let i = 0; i < 4; i++) expect((await hit(k, T0 + i * 15_000, 4)).allowed).toBe(true);
      expect((await hit(k, T0 + 59_000, 4)).allowed).toBe(false);
      expect((await hit(k, T0 + 60_000, 4)).allowed).toBe(true); // the t=0 one left
      expect((await hit(k, T0 + 61_000, 4)).allowed).toBe(false); // t=15 s still counts
      expect((await hit(k, T0 + 75_000, 4)).allowed).toBe(true);
    });

    it("only looks when asked not to consume", async () => {
      window = await make();
      const k = key();
      const look = await hit(k, T0, 2, false);
      expect(look).toMatchObject({ allowed: true, remaining: 2, resetMs: T0 + MINUTE });
      await hit(k, T0 + 1);
      await hit(k, T0 + 2);
      expect(await hit(k, T0 + 3, 2, false)).toMatchObject({
        allowed: false,
        remaining: 0,
        resetMs: T0 + 1 + MINUTE,
      });
      expect((await hit(k, T0 + 1 + MINUTE, 2, false)).remaining).toBe(1);
    });

    it("keeps keys apart and counts two requests in the same millisecond twice", async () => {
      window = await make();
      const [a, b] = [key(), key()];
      expect((await hit(a, T0, 2)).remaining).toBe(1);
      expect((await hit(a, T0, 2)).remaining).toBe(0);
      expect((await hit(a, T0, 2)).allowed).toBe(false);
      expect((await hit(b, T0, 2)).allowed).toBe(true);
    });

    it("refuses everything at a limit of zero", async () => {
      window = await make();
      const s = await hit(key(), T0, 0);
      expect(s).toMatchObject({ allowed: false, remaining: 0 });
      expect(retryAfterSeconds(s, T0)).toBe(60);
    });

    it("accepts exactly the limit from concurrent callers", async () => {
      window = await make();
      const k = key();
      const results = await Promise.all(Array.from({ length: 50 }, () => hit(k, T0, 20)));
      expect(results.filter((r) => r.allowed)).toHaveLength(20);
    });
  });
}

windowContract("in-process sliding window", async () => new MemorySlidingWindow());

describe("Redis sliding window", () => {
  windowContract("Redis sliding window", async () =>
    RedisSlidingWindow.connect(await testRedisUrl(), `rubricon-test:${randomBytes(6).toString("hex")}:`),
  );

  it("shares one window between two connections (two app instances)", async () => {
    const prefix = `rubricon-test:${randomBytes(6).toString("hex")}:`;
    const url = await testRedisUrl();
    const [a, b] = await Promise.all([
      RedisSlidingWindow.connect(url, prefix),
      RedisSlidingWindow.connect(url, prefix),
    ]);
    try {
      const hit = (w: SlidingWindow) =>
        w.hit({ key: "team:x", limit: 10, windowMs: MINUTE, nowMs: T0, id: randomUUID() });
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => hit(i % 2 ? a : b)));
      expect(results.filter((r) => r.allowed)).toHaveLength(10);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("refuses to start when Redis cannot be reached", async () => {
    await expect(RedisSlidingWindow.connect("redis://127.0.0.1:1", "x:")).rejects.toThrow(
      /Cannot reach Redis/,
    );
  });
});

describe("in-process sliding window housekeeping", () => {
  it("forgets keys whose requests all left the window", async () => {
    const window = new MemorySlidingWindow();
    for (let i = 0; i < 100; i++)
      await window.hit({ key: `k${i}`, limit: 1, windowMs: MINUTE, nowMs: T0, id: String(i) });
    expect(window.size).toBe(100);
    // Sweeps run every 10 000 hits; these land a window later, on one key.
    for (let i = 0; i < 10_000; i++)
      window.hitSync({ key: "busy", limit: 5, windowMs: MINUTE, nowMs: T0 + MINUTE, id: String(i) });
    expect(window.size).toBe(1);
  });

  it("keeps order when the clock steps back", async () => {
    const window = new MemorySlidingWindow();
    const hit = (nowMs: number) => window.hitSync({ key: "k", limit: 3, windowMs: MINUTE, nowMs, id: "x" });
    hit(T0 + 10_000);
    hit(T0); // an earlier instant after a later one
    expect(hit(T0 + 5000).resetMs).toBe(T0 + MINUTE);
    expect(hit(T0 + MINUTE).allowed).toBe(true); // the T0 entry left first
  });

  it("answers a retry of at least one second", () => {
    expect(retryAfterSeconds({ allowed: false, limit: 1, remaining: 0, resetMs: T0 + 1 }, T0)).toBe(1);
    expect(retryAfterSeconds({ allowed: false, limit: 1, remaining: 0, resetMs: T0 + 1001 }, T0)).toBe(2);
  });
});
