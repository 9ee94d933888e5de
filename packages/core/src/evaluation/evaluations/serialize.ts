import type { Evaluation } from "@rubricon/contracts";
import type { evaluations } from "@rubricon/db";

export type EvaluationRow = typeof evaluations.$inferSelect;

export function evaluationLinks(
  baseUrl: string,
  row: Pick<EvaluationRow, "id" | "shareToken">,
): Evaluation["links"] {
  const e = `${baseUrl}/evaluations/${row.id}`;
  return {
    preview: `${e}/preview`,
    review: `${e}/review`,
    edit: `${e}/edit`,
    results: `${e}/results`,
    share: `${baseUrl}/share/${row.shareToken}`,
  };
}

export type TemplateRefs = Map<string, { name: string; version: number }>;

export function toEvaluation(
  row: EvaluationRow,
  comparisonCount: number,
  baseUrl: string,
  templates: TemplateRefs,
  access?: string | null,
): Evaluation {
  const evaluation: Evaluation = {
    id: row.id,
    object: "evaluation",
    teamId: row.teamId,
    name: row.name,
    description: row.description,
    type: row.type,
    status: row.status,
    shareAccess: row.shareAccess,
    shareToken: row.shareToken,
    allowMultipleRatings: row.allowMultipleRatings,
    evaluationMethod: row.evaluationMethod,
    instructions: row.instructions,
    scenario: row.scenario,
    selectedDimensionIds: row.selectedDimensionIds,
    templates: row.selectedDimensionIds.flatMap((id) => {
      const t = templates.get(id);
      return t ? [{ id, name: t.name, version: t.version }] : [];
    }),
    // jsonb keeps an object's keys in its own order; the API answers them in the schema's.
    selectedAutousers: row.selectedAutousers.map((a) => ({
      autouserId: a.autouserId,
      agentCount: a.agentCount,
    })),
    comparisonCount,
    ratingWindow: {
      closesAt: row.ratingDeadline?.toISOString() ?? null,
      targetRatingsPerComparison: row.targetRatingsPerComparison,
    },
    collectRaterName: row.collectRaterName,
    collectRaterEmail: row.collectRaterEmail,
    endedAt: row.endedAt?.toISOString() ?? null,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    links: evaluationLinks(baseUrl, row),
  };
  // Set after the literal rather than spread into it: a spread makes every evaluation in a generic, slower way.
  if (access === "VIEWER" || access === "EDITOR" || access === "OWNER")
    evaluation.sharedWithYou = { permission: access };
  return evaluation;
}

/** Event payloads carry the evaluation as the API shows it, with only the preview, review and results links. */
export function toEvaluationEventObject(evaluation: Evaluation): Record<string, unknown> & { id: string } {
  const { preview, review, results } = evaluation.links;
  return { ...evaluation, links: { preview, review, results } };
}
