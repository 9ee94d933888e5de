import { type DbOrTx, evaluationStats } from "@rubricon/db";
import { and, eq } from "drizzle-orm";
import type { EvaluationRow } from "../evaluations/serialize";
import type { StatsTemplate } from "./load";

/**
 * What computed statistics depend on: the ratings (their revision), the evaluation (status, selected templates)
 * and the templates' versions. A cached entry with another fingerprint is stale.
 */
export function statsFingerprint(row: EvaluationRow, templates: StatsTemplate[]): string {
  const versions = templates.map((t) => `${t.id}@${t.version}`).join(",");
  return `${row.ratingsRevision}|${row.updatedAt.toISOString()}|${versions}`;
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
