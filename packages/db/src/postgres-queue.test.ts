import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

/*
 * postgres.js is patched (patches/postgres@3.4.9.patch) so its pool queues compact the entries they have shifted
 * out; a queue that never empties otherwise keeps every entry it ever held and each `remove` scans them all. The
 * speed is measured by `pnpm bench pool`; this holds the queue to its contract across compactions, against a plain
 * array doing the same operations.
 */
interface Queue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  remove(x: T): T | null;
}

const require = createRequire(import.meta.url);
const Queue = require(join(dirname(require.resolve("postgres")), "queue.js")) as <T>(
  initial?: T[],
) => Queue<T>;

describe("postgres.js pool queue (patched)", () => {
  it("keeps first-in first-out order and removals exact through many compactions", () => {
    const queue = Queue<object>();
    const model: object[] = [];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 100_000; i++) {
      const r = random();
      // The queue hovers around 200 entries, so shifted-out prefixes pass the compaction threshold again and again.
      if (r < (model.length > 200 ? 0.3 : 0.6) || model.length === 0) {
        const x = {};
        queue.push(x);
        model.push(x);
      } else if (r < 0.8) {
        expect(queue.shift()).toBe(model.shift());
      } else {
        const x = model[Math.floor(random() * model.length)]!;
        expect(queue.remove(x)).toBe(x);
        model.splice(model.indexOf(x), 1);
        expect(queue.remove(x)).toBeNull();
      }
      expect(queue.length).toBe(model.length);
    }
    while (model.length) expect(queue.shift()).toBe(model.shift());
    expect(queue.length).toBe(0);
  });

  it("is the patched queue, which compacts what it has shifted out", () => {
    expect(String(Queue)).toContain("compact");
  });
});
