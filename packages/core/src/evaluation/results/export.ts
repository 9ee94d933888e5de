import type { Rating } from "@rubricon/contracts";
import { comparisons, ratings } from "@rubricon/db";
import { asc, eq } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { loadVisibleEvaluation } from "../evaluations/access";
import { toRating } from "../ratings/serialize";

export const CSV_COLUMNS = [
  "rating_id",
  "evaluation_id",
  "comparison_id",
  "comparison_name",
  "rater_type",
  "rater_id",
  "template_id",
  "template_version",
  "value",
  "skip_reason",
  "time_spent_seconds",
  "justification",
  "created_at",
] as const;

/**
 * Text is always quoted (RFC 4180), so a spreadsheet that splits on `;` or tabs still sees one cell, and a leading
 * formula trigger (=, +, -, @, tab, carriage return, or their full-width forms) is prefixed with `'` so it is shown,
 * never run. Numbers are written bare.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  const text = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/.test(value) ? `'${value}` : value;
  return `"${text.replaceAll('"', '""')}"`;
}

/** One row per rating and rated template; a skipped rating is one row with no template and no value. */
export function ratingsToCsv(items: Rating[], comparisonNames: Map<string, string | null>): string {
  const lines = [CSV_COLUMNS.join(",")];
  for (const r of items) {
    const rater = r.userId ?? r.publicRaterId ?? r.autouserId;
    const base = (templateId: string | null, version: number | null, value: number | null) =>
      [
        r.id,
        r.evaluationId,
        r.comparisonId,
        comparisonNames.get(r.comparisonId) ?? null,
        r.raterType,
        rater,
        templateId,
        version,
        value,
        r.skipReason,
        r.timeSpentSeconds,
        r.justification,
        r.createdAt,
      ]
        .map(csvField)
        .join(",");
    const entries = Object.entries(r.dimensionRatings);
    if (entries.length === 0) lines.push(base(null, null, null));
    for (const [templateId, value] of entries) {
      lines.push(base(templateId, r.templateVersions[templateId] ?? null, value));
    }
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** Every rating of an evaluation, oldest first, with the comparison names the CSV shows. */
export async function exportRatings(ctx: CoreContext, actor: Actor, id: string) {
  await loadVisibleEvaluation(ctx.db, actor, id, { need: "VIEWER" });
  const [rows, comps] = await Promise.all([
    ctx.db
      .select()
      .from(ratings)
      .where(eq(ratings.evaluationId, id))
      .orderBy(asc(ratings.createdAt), asc(ratings.id)),
    ctx.db
      .select({ id: comparisons.id, name: comparisons.name })
      .from(comparisons)
      .where(eq(comparisons.evaluationId, id)),
  ]);
  return {
    ratings: rows.map(toRating),
    comparisonNames: new Map(comps.map((c) => [c.id, c.name])),
  };
}
