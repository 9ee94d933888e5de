import { type DbOrTx, evaluationRatingRevisions, evaluationStats } from "@rubricon/db";
import { and, eq, sql } from "drizzle-orm";
import type { EvaluationRow } from "../evaluations/serialize";
import { loadStatsTemplates, type StatsTemplate } from "./load";

/** Shards of an evaluation's count of new ratings (`evaluation_rating_revisions`), at least the connections. */
export const REVISION_SHARDS = 64;

/** The sum of the evaluation's new-rating shards: how many ratings were ever added to it. */
async function ratingsCounted(db: DbOrTx, evaluationId: string): Promise<string> {
  const [counted] = await db
    .select({ n: sql<string>`coalesce(sum(${evaluationRatingRevisions.revision}), 0)::text` })
    .from(evaluationRatingRevisions)
    .where(eq(evaluationRatingRevisions.evaluationId, evaluationId));
  return counted?.n ?? "0";
}

function fingerprintOf(row: EvaluationRow, counted: string, templates: StatsTemplate[]): string {
  const versions = templates.map((t) => `${t.id}@${t.version}`).join(",");
  return `${row.ratingsRevision}.${row.ratingChanges}.${counted}|${row.updatedAt.toISOString()}|${versions}`;
}

/**
 * What computed statistics depend on: the ratings (the evaluation's own revision for deletes and exclusions, the
 * changes to stored ratings its triggers count (a deleted user's ratings losing their rater, say), and the sum of its
 * new-rating shards, all only growing), the evaluation (status, selected templates) and the
 * templates' versions. A cached entry with another fingerprint is stale.
 */
export async function statsFingerprint(
  db: DbOrTx,
  row: EvaluationRow,
  templates: StatsTemplate[],
): Promise<string> {
  return fingerprintOf(row, await ratingsCounted(db, row.id), templates);
}

/**
 * The evaluation's templates and its fingerprint, both read at once: a cached read spends its time on these
 * round trips, not on the payload.
 */
export async function statsState(
  db: DbOrTx,
  row: EvaluationRow,
): Promise<{ templates: StatsTemplate[]; fingerprint: string }> {
  const [templates, counted] = await Promise.all([loadStatsTemplates(db, row), ratingsCounted(db, row.id)]);
  return { templates, fingerprint: fingerprintOf(row, counted, templates) };
}

/**
 * The few most recently used values per key in this process, each valid for one fingerprint. A fingerprint only
 * names one state of an evaluation's ratings, so a value kept under it is the one any process would compute or
 * find stored; other processes and a restart simply start without it.
 */
class FingerprintMemo<V> {
  private readonly entries = new Map<string, { fingerprint: string; value: V }>();
  constructor(private readonly capacity: number) {}

  get(key: string, fingerprint: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit || hit.fingerprint !== fingerprint) return undefined;
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit.value;
  }

  set(key: string, fingerprint: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { fingerprint, value });
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Forgets `key` only while it still holds `value` (a newer one stays). */
  drop(key: string, value: V): void {
    if (this.entries.get(key)?.value === value) this.entries.delete(key);
  }
}

/**
 * Tallies by evaluation, in flight or done: results and each agreement metric are computed from the same tally,
 * so the first read of one after another (or both at once) scans the ratings once. A tally of a million ratings
 * is a few megabytes (its size follows comparisons and raters, not ratings); four are kept.
 */
const tallies = new FingerprintMemo<Promise<unknown>>(4);

export function sharedTally<T>(
  evaluationId: string,
  fingerprint: string,
  load: () => Promise<T>,
): Promise<T> {
  const hit = tallies.get(evaluationId, fingerprint);
  if (hit) return hit as Promise<T>;
  const loading = load();
  tallies.set(evaluationId, fingerprint, loading);
  loading.catch(() => tallies.drop(evaluationId, loading));
  return loading;
}

/**
 * Payloads last answered, so a fresh read skips fetching and parsing the stored JSON (hundreds of kilobytes for
 * thousands of comparisons). The fingerprint is still read from Postgres on every request.
 */
const payloads = new FingerprintMemo<object>(16);

/** A stored payload its schema no longer accepts (written by an older release) is computed again. */
function restoredOrNull<T>(restore: (stored: unknown) => T, stored: unknown): T | null {
  try {
    return restore(stored);
  } catch {
    return null;
  }
}

/**
 * Answers the cached payload of `kind` while it is fresh, otherwise computes, stores and answers it. `db` is the
 * pool, not a transaction: the store may finish after the answer. A payload is answered again as the same object
 * and must not be changed: the API keeps its serialized text with it. One read back from Postgres goes through
 * `restore` (the payload's schema), since jsonb keeps its keys in an order of its own and the API answers the
 * payload without parsing it.
 */
export async function cachedStats<T extends object>(
  db: DbOrTx,
  evaluationId: string,
  kind: string,
  fingerprint: string,
  compute: () => Promise<T>,
  restore: (stored: unknown) => T,
): Promise<T> {
  const key = `${evaluationId}\u0000${kind}`;
  const remembered = payloads.get(key, fingerprint);
  if (remembered) return remembered as T;
  // Only a payload of this fingerprint is fetched: a stale one (every first read after a rating finds one) is
  // megabytes that would cross the wire to be dropped.
  const [hit] = await db
    .select({ payload: evaluationStats.payload })
    .from(evaluationStats)
    .where(
      and(
        eq(evaluationStats.evaluationId, evaluationId),
        eq(evaluationStats.kind, kind),
        eq(evaluationStats.fingerprint, fingerprint),
      ),
    )
    .limit(1);
  const restored = hit ? restoredOrNull(restore, hit.payload) : null;
  if (restored) {
    payloads.set(key, fingerprint, restored);
    return restored;
  }
  const payload = await compute();
  payloads.set(key, fingerprint, payload);
  // Stored after answering: the row is written with the fingerprint it was computed for, so a late or lost
  // write never makes another state's read answer it, and this process already keeps it. Writing hundreds of
  // kilobytes of JSON was a tenth of the first read.
  db.insert(evaluationStats)
    .values({ evaluationId, kind, fingerprint, payload: payload as Record<string, unknown> })
    .onConflictDoUpdate({
      target: [evaluationStats.evaluationId, evaluationStats.kind],
      set: { fingerprint, payload: payload as Record<string, unknown>, computedAt: new Date() },
    })
    .catch(() => {});
  return payload;
}
