import type { AlphaMetric, EvaluationAgreement, EvaluationResults } from "@rubricon/contracts";
import type { Actor, CoreContext } from "../../kernel";
import { loadVisibleEvaluation } from "../evaluations/access";
import { computeAgreementOfTally, computeResultsOfTally, loadStatsTally } from "./aggregate";
import { defaultMetric } from "./agreement";
import { cachedStats, statsFingerprint } from "./cache";
import { loadStatsTemplates } from "./load";

/** `GET /evaluations/{id}/results`, recomputed only when the ratings, the evaluation or its templates change. */
export async function getResults(ctx: CoreContext, actor: Actor, id: string): Promise<EvaluationResults> {
  const row = await loadVisibleEvaluation(ctx.db, actor, id, { need: "VIEWER" });
  const fingerprint = await statsFingerprint(ctx.db, row, await loadStatsTemplates(ctx.db, row));
  return cachedStats(ctx.db, id, "results", fingerprint, async () =>
    computeResultsOfTally(await loadStatsTally(ctx.db, row), ctx.clock.now()),
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
  const fingerprint = await statsFingerprint(ctx.db, row, await loadStatsTemplates(ctx.db, row));
  return cachedStats(ctx.db, id, `agreement:${m}`, fingerprint, async () =>
    computeAgreementOfTally(await loadStatsTally(ctx.db, row), ctx.clock.now(), m),
  );
}
