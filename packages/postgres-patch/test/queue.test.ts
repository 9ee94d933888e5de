import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

/*
 * The pool's queue as installed (patched), in both builds Node loads: its contract holds across compactions, checked
 * against a plain array doing the same operations. Its speed is `pnpm bench pool`'s to measure.
 */
interface Queue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  remove(x: T): T | null;
}
type MakeQueue = <T>(initial?: T[]) => Queue<T>;

const require = createRequire(import.meta.url);
const cjsDir = dirname(require.resolve("postgres"));
const esmQueue = join(cjsDir, "../../src/queue.js");

const builds: [string, () => Promise<MakeQueue>][] = [
  ["CommonJS", async () => require(join(cjsDir, "queue.js")) as MakeQueue],
  ["ESM", async () => ((await import(pathToFileURL(esmQueue).href)) as { default: MakeQueue }).default],
];

describe.each(builds)("postgres.js pool queue (%s build)", (_name, load) => {
  it("keeps first-in first-out order and removals exact through many compactions", async () => {
    const queue = (await load())<object>();
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

  it("starts from the entries it is given, and removes none it does not hold", async () => {
    const [a, b, c] = [{}, {}, {}];
    const queue = (await load())([a, b]);
    expect(queue.length).toBe(2);
    expect(queue.remove(c)).toBeNull();
    expect(queue.shift()).toBe(a);
    // An entry already shifted out is not found again.
    expect(queue.remove(a)).toBeNull();
    expect(queue.remove(b)).toBe(b);
    expect(queue.length).toBe(0);
    expect(queue.shift()).toBeUndefined();
  });
});
