// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the edits match the driver's own template literals as text
import { readFileSync } from "node:fs";

/**
 * Rubricon's change to postgres.js, kept once. The driver ships the same code three times (`src` for Node's ESM,
 * `cjs/src` for CommonJS, `cf/src` for Cloudflare Workers), so the same change is made to each; `generate.ts` writes
 * the result as the patch pnpm applies on install.
 *
 * Two changes, both measured or needed (docs/decisions/performance.md, "The postgres.js patch"):
 * - **The pool's queues stay compact** (`driver/queue.js`): upstream's queue searches its shifted-out entries on every
 *   `remove` and frees them only when it empties, which a busy pool's queue never does; `pnpm bench pool` loses
 *   half to two thirds of its throughput over a minute without this.
 * - **A statement on an ended transaction is refused** (`TRANSACTION_ENDED`): upstream runs a statement made on a
 *   transaction's handle after its `commit` was sent on whatever the connection does next (outside the transaction)
 *   or queues it for ever. `commitWithLast` in @rubricon/db relies on the refusal.
 */

/** The driver version the change is made for, and the SHA-256 of each file it changes as that version publishes it. */
export const UPSTREAM = {
  version: "3.4.9",
  files: {
    "cf/src/index.js": "aca9c247b7ddb2aedf90d20ce8e6f52ac6ebd95865056599ca05ed4dab4baad7",
    "cf/src/queue.js": "15e6345adb6708bf3b99ad39fc2231c2fb61de5f6cba4b7a7a6be881482a4ec3",
    "cjs/src/index.js": "d8fea1a5311c47e65004646bc81f57305ac64d48f99004a5b3ca27bcfc6babf8",
    "cjs/src/queue.js": "7d20fa53a3930be070609d7912ecd14c347df3526805bca2f6cb7eb35d2e62cf",
    "src/index.js": "4e21f5733e70d79cffc10d10d4ef01031de4a9ac862210e43f8870029fd103ed",
    "src/queue.js": "15e6345adb6708bf3b99ad39fc2231c2fb61de5f6cba4b7a7a6be881482a4ec3",
  } as Record<string, string>,
};

/** A replacement of one exact piece of upstream text, which must occur once in the file. */
interface Edit {
  find: string;
  replace: string;
}

const lines = (...xs: string[]) => xs.join("\n");

/** In `begin`'s `scope`: the commit, prepare and rollback end the transaction; its handle refuses what comes later. */
const TRANSACTION_END: Edit[] = [
  {
    find: lines("      let uncaughtError", "        , result", ""),
    replace: lines("      let uncaughtError", "        , result", "        , ended = false", ""),
  },
  {
    find: lines("        await (name", "          ? sql`rollback to ${ sql(name) }`"),
    replace: lines("        await end(name", "          ? sql`rollback to ${ sql(name) }`"),
  },
  {
    find: lines(
      "          ? await sql`prepare transaction '${ sql.unsafe(prepare) }'`",
      "          : await sql`commit`",
    ),
    replace: lines(
      "          ? await end(sql`prepare transaction '${ sql.unsafe(prepare) }'`)",
      "          : await end(sql`commit`)",
    ),
  },
  {
    find: lines("      function handler(q) {", "        q.catch(e => uncaughtError || (uncaughtError = e))"),
    replace: lines(
      "      // A statement made on the transaction's handle once its end is sent would run outside it, or wait for ever",
      "      // for a connection the transaction no longer holds: it is refused instead.",
      "      function end(q) {",
      "        q.ends = true",
      "        return q",
      "      }",
      "",
      "      function handler(q) {",
      "        if (ended)",
      "          return q.reject(Errors.generic('TRANSACTION_ENDED', 'a statement was made on a transaction that has ended'))",
      "        q.ends && (ended = true)",
      "        q.catch(e => uncaughtError || (uncaughtError = e))",
    ),
  },
];

function applyEdits(path: string, text: string, edits: Edit[]): string {
  let out = text;
  for (const edit of edits) {
    const at = out.indexOf(edit.find);
    if (at === -1 || out.indexOf(edit.find, at + 1) !== -1) {
      throw new Error(`${path}: expected exactly one of ${JSON.stringify(edit.find.split("\n")[0])}`);
    }
    out = out.slice(0, at) + edit.replace + out.slice(at + edit.find.length);
  }
  return out;
}

/** The compacting queue, written once in the ESM build's form (`driver/queue.js`). */
export const QUEUE_SOURCE = readFileSync(new URL("../driver/queue.js", import.meta.url), "utf8");

/** The queue module of one build: upstream's own export line (ESM or CommonJS), then the changed body. */
function changedQueue(path: string, upstream: string): string {
  const [exportLine] = upstream.split("\n", 1);
  if (exportLine !== "export default Queue" && exportLine !== "module.exports = Queue") {
    throw new Error(`${path}: unexpected first line ${JSON.stringify(exportLine)}`);
  }
  return `${exportLine}${QUEUE_SOURCE.slice(QUEUE_SOURCE.indexOf("\n"))}`;
}

/** Each changed file's text, given each file's upstream text (keyed as in `UPSTREAM.files`). */
export function changeDriver(upstream: ReadonlyMap<string, string>): Map<string, string> {
  const changed = new Map<string, string>();
  for (const path of Object.keys(UPSTREAM.files)) {
    const text = upstream.get(path);
    if (text === undefined) throw new Error(`${path}: missing`);
    changed.set(
      path,
      path.endsWith("/queue.js") ? changedQueue(path, text) : applyEdits(path, text, TRANSACTION_END),
    );
  }
  return changed;
}
