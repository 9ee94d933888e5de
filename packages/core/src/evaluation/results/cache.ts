import { type DbOrTx, evaluationRatingRevisions, evaluationStats } from "@rubricon/db";
import { and, eq, sql } from "drizzle-orm";
import type { EvaluationRow } from "../evaluations/serialize";
import type { StatsTemplate } from "./load";

/** Shards of an evaluation's count of new ratings (`evaluation_rating_revisions`), at least the connections. */
export const REVISION_SHARDS = 64;

/**
 * What computed statistics depend on: the ratings (the evaluation's own revision for deletes and exclusions, and
 * the sum of its new-rating shards, both only growing), the evaluation (status, selected templates) and the
 * templates' versions. A cached entry with another fingerprint is stale.
 */
export async function statsFingerprint(
  db: DbOrTx,
  row: EvaluationRow,
  templates: StatsTemplate[],
): Promise<string> {
  const [counted] = await db
    .select({ n: sql<string>`coalesce(sum(${evaluationRatingRevisions.revision}), 0)::text` })
    .from(evaluationRatingRevisions)
    .where(eq(evaluationRatingRevisions.evaluationId, row.id));
  const versions = templates.map((t) => `${t.id}@${t.version}`).join(",");
  return `${row.ratingsRevision}.${counted?.n ?? "0"}|${row.updatedAt.toISOString()}|${versions}`;
}

/** Answers the cached payload of `kind` while it is fresh, otherwise computes, stores and answers it. */
export async function cachedStats<T extends object>(
  db: DbOrTx,
  evaluationId: string,
  kind: string,
  fingerprint: string,
  compute: () => Promise<T>,
): Promise<T> {
  const [hit] = await db
    .select({ fingerprint: evaluationStats.fingerprint, payload: evaluationStats.payload })
    .from(evaluationStats)
    .where(and(eq(evaluationStats.evaluationId, evaluationId), eq(evaluationStats.kind, kind)))
    .limit(1);
  if (hit && hit.fingerprint === fingerprint) return hit.payload as T;
  const payload = await compute();
  await db
    .insert(evaluationStats)
    .values({ evaluationId, kind, fingerprint, payload: payload as Record<string, unknown> })
    .onConflictDoUpdate({
      target: [evaluationStats.evaluationId, evaluationStats.kind],
      set: { fingerprint, payload: payload as Record<string, unknown>, computedAt: new Date() },
    });
  return payload;
}
