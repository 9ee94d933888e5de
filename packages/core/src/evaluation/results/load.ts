import type { RaterType } from "@rubricon/contracts";
import {
  comparisons,
  type DbOrTx,
  hotStatement,
  type Params,
  publicRaters,
  ratings,
  templates,
} from "@rubricon/db";
import { and, asc, eq, sql } from "drizzle-orm";
import type { EvaluationRow } from "../evaluations/serialize";

export interface StatsTemplate {
  id: string;
  name: string;
  version: number;
  scaleMin: number;
  scaleMax: number;
}

export interface StatsRating {
  id: string;
  comparisonId: string;
  raterType: RaterType;
  /** The user, public rater or autouser who rated. */
  raterId: string | null;
  dimensionRatings: Record<string, number>;
  skipped: boolean;
}

/** Everything results and agreement are computed from, read once. */
export interface StatsData {
  evaluation: EvaluationRow;
  templates: StatsTemplate[];
  comparisons: { id: string; name: string | null; position: number }[];
  ratings: StatsRating[];
}

function scaleOf(body: Record<string, unknown>): { scaleMin: number; scaleMax: number } {
  const min = typeof body.scaleMin === "number" ? body.scaleMin : 1;
  const max = typeof body.scaleMax === "number" ? body.scaleMax : 7;
  return { scaleMin: min, scaleMax: max };
}

// Every new rating reads its templates too: a hot statement, built once.
const templatesByIds = hotStatement("templates_by_ids", (db, $: Params<{ ids: string[] }>) =>
  db
    .select({ id: templates.id, name: templates.name, version: templates.version, body: templates.body })
    .from(templates)
    .where(sql`${templates.id} = any(${$.ids}::text[])`),
);

/** The evaluation's templates in selection order, with the scale each one rates on. */
export async function loadStatsTemplates(db: DbOrTx, row: EvaluationRow): Promise<StatsTemplate[]> {
  if (row.selectedDimensionIds.length === 0) return [];
  const found = await templatesByIds(db, { ids: row.selectedDimensionIds });
  const byId = new Map(found.map((t) => [t.id, t]));
  return row.selectedDimensionIds.flatMap((id) => {
    const t = byId.get(id);
    return t ? [{ id, name: t.name, version: t.version, ...scaleOf(t.body as Record<string, unknown>) }] : [];
  });
}

/** The evaluation's comparisons in position order. */
export function loadStatsComparisons(db: DbOrTx, row: EvaluationRow): Promise<StatsData["comparisons"]> {
  return db
    .select({ id: comparisons.id, name: comparisons.name, position: comparisons.position })
    .from(comparisons)
    .where(eq(comparisons.evaluationId, row.id))
    .orderBy(asc(comparisons.position), asc(comparisons.id));
}

export async function loadRatingsForStats(db: DbOrTx, row: EvaluationRow): Promise<StatsData> {
  const [tpls, comps, rows] = await Promise.all([
    loadStatsTemplates(db, row),
    loadStatsComparisons(db, row),
    db
      .select({
        id: ratings.id,
        comparisonId: ratings.comparisonId,
        raterType: ratings.raterType,
        userId: ratings.userId,
        publicRaterId: ratings.publicRaterId,
        autouserId: ratings.autouserId,
        dimensionRatings: ratings.dimensionRatings,
        skipReason: ratings.skipReason,
      })
      .from(ratings)
      .where(
        and(
          eq(ratings.evaluationId, row.id),
          // Ratings of public raters the owners excluded leave the statistics.
          sql`not exists (select 1 from ${publicRaters} where ${publicRaters.id} = ${ratings.publicRaterId} and ${publicRaters.excludedAt} is not null)`,
        ),
      )
      .orderBy(asc(ratings.createdAt), asc(ratings.id)),
  ]);
  return {
    evaluation: row,
    templates: tpls,
    comparisons: comps,
    ratings: rows.map((r) => ({
      id: r.id,
      comparisonId: r.comparisonId,
      raterType: r.raterType,
      raterId: r.userId ?? r.publicRaterId ?? r.autouserId,
      dimensionRatings: r.dimensionRatings,
      skipped: r.skipReason !== null,
    })),
  };
}
