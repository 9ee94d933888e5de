import type { AlphaMetric, EvaluationAgreement, EvaluationResults } from "@rubricon/contracts";
import type { Actor, CoreContext } from "../../kernel";
import { loadVisibleEvaluation } from "../evaluations/access";
import type { EvaluationRow } from "../evaluations/serialize";
import { computeAgreementOfTally, computeResultsOfTally, loadStatsTally, type StatsTally } from "./aggregate";
import { defaultMetric } from "./agreement";
import { cachedStats, sharedTally, statsFingerprint } from "./cache";
import { loadStatsTemplates } from "./load";

/** The evaluation's fingerprint, and its tally shared by results and every agreement metric of that state. */
async function statsSource(ctx: CoreContext, row: EvaluationRow) {
  const templates = await loadStatsTemplates(ctx.db, row);
  const fingerprint = await statsFingerprint(ctx.db, row, templates);
  const tally = (): Promise<StatsTally> =>
    sharedTally(row.id, fingerprint, () => loadStatsTally(ctx.db, row, templates));
  return { fingerprint, tally };
}

/** `GET /evaluations/{id}/results`, recomputed only when the ratings, the evaluation or its templates change. */
export async function getResults(ctx: CoreContext, actor: Actor, id: string): Promise<EvaluationResults> {
  const row = await loadVisibleEvaluation(ctx.db, actor, id, { need: "VIEWER" });
  const { fingerprint, tally } = await statsSource(ctx, row);
  return cachedStats(ctx.db, id, "results", fingerprint, async () =>
    computeResultsOfTally(await tally(), ctx.clock.now()),
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
  return cachedStats(ctx.db, id, `agreement:${m}`, fingerprint, async () =>
    computeAgreementOfTally(await tally(), ctx.clock.now(), m),
  );
}
