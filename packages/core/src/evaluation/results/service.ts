import { type AlphaMetric, EvaluationAgreement, EvaluationResults } from "@rubricon/contracts";
import type { Actor, CoreContext } from "../../kernel";
import { loadVisibleEvaluation } from "../evaluations/access";
import type { EvaluationRow } from "../evaluations/serialize";
import { computeAgreementOfTally, computeResultsOfTally, type StatsTally } from "./aggregate";
import { defaultMetric } from "./agreement";
import { cachedStats, sharedTally, statsState } from "./cache";
import { storedStatsTally } from "./stored";

/**
 * The evaluation's fingerprint, and its tally shared by results and every agreement metric of that state: the
 * stored tally with the queued ratings folded in, not a scan of every rating.
 */
async function statsSource(ctx: CoreContext, row: EvaluationRow) {
  const { templates, fingerprint } = await statsState(ctx.db, row);
  const tally = (): Promise<StatsTally> =>
    sharedTally(row.id, fingerprint, () => storedStatsTally(ctx.db, row, templates));
  return { fingerprint, tally };
}

/**
 * Results read back from Postgres, in the order a fresh computation gives: jsonb keeps an object's keys shortest
 * first, so a distribution's negative points and the templates in each cell come back reordered. Their order
 * carries no meaning, but a reread should answer the same bytes as the first read.
 */
function restoreResults(stored: unknown): EvaluationResults {
  const results = EvaluationResults.parse(stored);
  const inOrder = <V>(record: Record<string, V>, keys: string[]) =>
    Object.fromEntries(keys.filter((k) => k in record).map((k) => [k, record[k]!]));
  for (const d of results.dimensions) {
    d.distribution = inOrder(
      d.distribution,
      Object.keys(d.distribution).sort((a, b) => Number(a) - Number(b)),
    );
  }
  const templates = results.dimensions.map((d) => d.templateId);
  for (const row of [...results.perComparison, ...results.perRater])
    row.dimensions = inOrder(row.dimensions, templates);
  return results;
}

/** `GET /evaluations/{id}/results`, recomputed only when the ratings, the evaluation or its templates change. */
export async function getResults(ctx: CoreContext, actor: Actor, id: string): Promise<EvaluationResults> {
  const row = await loadVisibleEvaluation(ctx.db, actor, id, { need: "VIEWER" });
  const { fingerprint, tally } = await statsSource(ctx, row);
  return cachedStats(
    ctx.db,
    id,
    "results",
    fingerprint,
    async () => computeResultsOfTally(await tally(), ctx.clock.now()),
    restoreResults,
  );
}

/** `GET /evaluations/{id}/agreement`, cached per metric like the results. */
export async function getAgreement(
  ctx: CoreContext,
  actor: Actor,
  id: string,
  metric?: AlphaMetric,
): Promise<EvaluationAgreement> {
  const row = await loadVisibleEvaluation(ctx.db, actor, id, { need: "VIEWER" });
  const m = metric ?? defaultMetric(row.type);
  const { fingerprint, tally } = await statsSource(ctx, row);
  return cachedStats(
    ctx.db,
    id,
    `agreement:${m}`,
    fingerprint,
    async () => computeAgreementOfTally(await tally(), ctx.clock.now(), m),
    (stored) => EvaluationAgreement.parse(stored),
  );
}
