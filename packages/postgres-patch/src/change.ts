import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { git } from "./git";

/**
 * Rubricon's change to postgres.js, kept once, in the driver's own style under `driver/`. The driver ships the same
 * code three times (`src` for Node's ESM, `cjs/src` for CommonJS, `cf/src` for Cloudflare Workers), so the same
 * change is made to each; `generate.ts` writes the result as the patch pnpm applies on install.
 *
 * What it changes and what each part buys (docs/decisions/performance.md, "The postgres.js patch"):
 * - `driver/queue.js`, the pool's queues: they stay compact, where upstream's searches every entry it ever shifted
 *   out on each `remove` until it empties, which a busy pool's never does.
 * - `driver/driver.diff`, against the ESM build's `connection.js` and `index.js`:
 *   - a transaction's `begin` leaves with its first statements, one round trip less per transaction;
 *   - the statements of one turn of the event loop leave in one socket write up to 64 KiB (upstream: one per KiB);
 *   - a statement's signature is made once per text;
 *   - a statement on an ended transaction is refused (`TRANSACTION_ENDED`) instead of running outside it or
 *     waiting for ever: `commitWithLast` in @rubricon/db relies on it.
 */

/** The driver version the change is made for, and the SHA-256 of each file it changes as that version publishes it. */
export const UPSTREAM = {
  version: "3.4.9",
  files: {
    "cf/src/connection.js": "3efad812b825f76708f2e62e8dd00088900206e04afed2dc4b75b9aecd435fa9",
    "cf/src/index.js": "aca9c247b7ddb2aedf90d20ce8e6f52ac6ebd95865056599ca05ed4dab4baad7",
    "cf/src/queue.js": "15e6345adb6708bf3b99ad39fc2231c2fb61de5f6cba4b7a7a6be881482a4ec3",
    "cjs/src/connection.js": "ce6d375809baad79963ef9b3773e6ac757bcf6da2362d4d85482bb14c2c751be",
    "cjs/src/index.js": "d8fea1a5311c47e65004646bc81f57305ac64d48f99004a5b3ca27bcfc6babf8",
    "cjs/src/queue.js": "7d20fa53a3930be070609d7912ecd14c347df3526805bca2f6cb7eb35d2e62cf",
    "src/connection.js": "ee3a218d9aa6a6f2887c1a19da50009335fe84c11a5431d5cab72d6bc528632f",
    "src/index.js": "4e21f5733e70d79cffc10d10d4ef01031de4a9ac862210e43f8870029fd103ed",
    "src/queue.js": "15e6345adb6708bf3b99ad39fc2231c2fb61de5f6cba4b7a7a6be881482a4ec3",
  } as Record<string, string>,
};

/** The driver's three builds: the same modules, apart from how they import and export. */
export const BUILDS = ["cf/src", "cjs/src", "src"] as const;

/** The files `driver/driver.diff` changes, named as in the ESM build. */
const DIFFED = ["connection.js", "index.js"] as const;

const DRIVER_DIFF = fileURLToPath(new URL("../driver/driver.diff", import.meta.url));

/** The compacting queue, written once in the ESM build's form. */
export const QUEUE_SOURCE = readFileSync(new URL("../driver/queue.js", import.meta.url), "utf8");

/** The queue module of one build: upstream's own export line (ESM or CommonJS), then the changed body. */
function changedQueue(path: string, upstream: string): string {
  const [exportLine] = upstream.split("\n", 1);
  if (exportLine !== "export default Queue" && exportLine !== "module.exports = Queue") {
    throw new Error(`${path}: unexpected first line ${JSON.stringify(exportLine)}`);
  }
  return `${exportLine}${QUEUE_SOURCE.slice(QUEUE_SOURCE.indexOf("\n"))}`;
}

/**
 * One build's `connection.js` and `index.js` with `driver/driver.diff` applied. The builds differ only in their
 * import lines, outside every hunk, so the diff applies to each without fuzz; when upstream's text moves, git
 * refuses the hunk and this throws.
 */
function changedModules(build: string, upstream: ReadonlyMap<string, string>): Map<string, string> {
  const work = mkdtempSync(join(tmpdir(), "postgres-change-"));
  try {
    mkdirSync(join(work, "src"));
    for (const name of DIFFED) {
      const text = upstream.get(`${build}/${name}`);
      if (text === undefined) throw new Error(`${build}/${name}: missing`);
      writeFileSync(join(work, "src", name), text);
    }
    const applied = git(work, ["apply", "--whitespace=nowarn", DRIVER_DIFF]);
    if (applied.status !== 0)
      throw new Error(`driver/driver.diff does not apply to ${build}: ${applied.stderr}`);
    return new Map(DIFFED.map((name) => [`${build}/${name}`, readFileSync(join(work, "src", name), "utf8")]));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Each changed file's text, given each file's upstream text (keyed as in `UPSTREAM.files`). */
export function changeDriver(upstream: ReadonlyMap<string, string>): Map<string, string> {
  const changed = new Map<string, string>();
  for (const build of BUILDS) {
    for (const [path, text] of changedModules(build, upstream)) changed.set(path, text);
    const queue = `${build}/queue.js`;
    const text = upstream.get(queue);
    if (text === undefined) throw new Error(`${queue}: missing`);
    changed.set(queue, changedQueue(queue, text));
  }
  return changed;
}
