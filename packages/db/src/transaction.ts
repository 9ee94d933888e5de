import { PgTransaction } from "drizzle-orm/pg-core";
import type { DbOrTx, Tx } from "./client";

/** What a transaction's function answers when its last statements are to leave with the commit. */
export interface EndingWith<T> {
  /** What the transaction answers once committed. */
  value: T;
  /** The last statements, sent and not awaited (their `together`); nothing is sent after them. */
  last?: Promise<unknown>;
}

/**
 * Runs `work` in a transaction whose last statements leave with its commit: one write and one round trip for both.
 * Postgres runs a connection's statements in the order they arrive, so the commit runs after them; should one fail,
 * the transaction is aborted, the commit rolls it back, and that statement's error is what this throws. So every
 * refusal among the last statements must be an error Postgres raises (a unique index, a constraint), never a
 * decision taken on their answers, which are read only once the transaction is over. PGlite runs statements one at
 * a time in the order they are sent, so the same holds there.
 *
 * Inside another transaction (`db` is one) the statements are awaited before the savepoint is released: a failure
 * there must roll back to the savepoint, which only a failing function does.
 */
export async function commitWithLast<T>(db: DbOrTx, work: (tx: Tx) => Promise<EndingWith<T>>): Promise<T> {
  const nested = db instanceof PgTransaction;
  let last: Promise<unknown> | undefined;
  let value: T;
  try {
    value = await db.transaction(async (tx) => {
      const out = await work(tx);
      if (nested) {
        await out.last;
        return out.value;
      }
      last = out.last;
      // Read below, once the commit is answered; until then a failure must not count as unhandled.
      last?.catch(() => {});
      return out.value;
    });
  } catch (err) {
    // A commit that rolled back fails of its own on PGlite; the statement that failed says why.
    if (last) await last;
    throw err;
  }
  // Answered by now (Postgres answers in order), unless one was sent late, after awaiting another's answer: the
  // patched driver (and PGlite) refuse a statement on a transaction whose end is sent, so it fails here.
  await last;
  return value;
}

/**
 * The unique index a failed statement violated (Postgres's 23505), or null for any other failure. Looks through
 * Drizzle's wrapping to the driver's error: postgres.js names the index `constraint_name`, PGlite `constraint`.
 */
export function violatedUniqueIndex(err: unknown): string | null {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === "object"; depth++) {
    const fields = e as { code?: unknown; constraint_name?: unknown; constraint?: unknown; cause?: unknown };
    if (fields.code === "23505") {
      const name = fields.constraint_name ?? fields.constraint;
      return typeof name === "string" ? name : null;
    }
    e = fields.cause;
  }
  return null;
}
