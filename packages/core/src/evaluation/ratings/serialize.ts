import type { Rating } from "@rubricon/contracts";
import type { ratings } from "@rubricon/db";

export type RatingRow = typeof ratings.$inferSelect;

export function toRating(row: RatingRow): Rating {
  return {
    id: row.id,
    object: "rating",
    evaluationId: row.evaluationId,
    comparisonId: row.comparisonId,
    raterType: row.raterType,
    userId: row.userId,
    publicRaterId: row.publicRaterId,
    autouserId: row.autouserId,
    autouserRunId: row.autouserRunId,
    dimensionRatings: row.dimensionRatings,
    templateVersions: row.templateVersions,
    openTextResponses: row.openTextResponses,
    factors: row.factors,
    justification: row.justification,
    skipReason: row.skipReason,
    timeSpentSeconds: row.timeSpentSeconds,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * An object's keys in the order Postgres' jsonb keeps them: shorter keys (in UTF-8 bytes) first, keys of one length
 * by their bytes. A value built from what was inserted then reads, key for key, as the stored one.
 */
export function inJsonbOrder<T extends Record<string, unknown>>(record: T): T {
  const names = Object.keys(record);
  if (names.length < 2) return record;
  // ASCII keys (template ids, most answers' keys) are their own bytes: compared as they are, with no encoding.
  if (names.every(isAscii)) {
    names.sort((x, y) => x.length - y.length || (x < y ? -1 : x > y ? 1 : 0));
    return Object.fromEntries(names.map((k) => [k, record[k]])) as T;
  }
  const keys = names.map((k) => ({ k, b: Buffer.from(k, "utf8") }));
  keys.sort((x, y) => x.b.length - y.b.length || Buffer.compare(x.b, y.b));
  return Object.fromEntries(keys.map(({ k }) => [k, record[k]])) as T;
}

function isAscii(key: string): boolean {
  for (let i = 0; i < key.length; i++) if (key.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** A new rating's row as the insert stores it, built from the inserted values. */
export function asStoredRating(values: Omit<RatingRow, "rubricVersion">): RatingRow {
  return {
    ...values,
    rubricVersion: null,
    dimensionRatings: inJsonbOrder(values.dimensionRatings),
    templateVersions: inJsonbOrder(values.templateVersions),
    openTextResponses: inJsonbOrder(values.openTextResponses),
  };
}
