import { createHash } from "node:crypto";
import type { EventType } from "@rubricon/contracts";

/**
 * Representative `data.object`s for test deliveries, shaped like the real events' objects. Every id carries a
 * `_test_` infix so a receiver can tell them apart (and nothing it stores collides with real ids).
 */
export function sampleObject(
  type: EventType,
  opts: { teamId: string; baseUrl: string; now: Date; seed: string },
): Record<string, unknown> & { id: string } {
  const id = (prefix: string) => `${prefix}_test_${shortHash(`${opts.seed}:${prefix}`)}`;
  const at = opts.now.toISOString();
  const evaluationId = id("eval");
  const evaluation = () => {
    const base = `${opts.baseUrl}/evaluations/${evaluationId}`;
    return {
      id: evaluationId,
      object: "evaluation",
      teamId: opts.teamId,
      name: "Checkout flow (test event)",
      description: "A sample evaluation sent by a webhook test; it does not exist.",
      type: "SSE",
      status: "Running",
      shareAccess: "TEAM_ONLY",
      shareToken: `test_${shortHash(opts.seed)}`,
      allowMultipleRatings: false,
      evaluationMethod: "manual",
      instructions: null,
      scenario: null,
      selectedDimensionIds: ["overall"],
      templates: [{ id: "overall", name: "Overall quality", version: 1 }],
      selectedAutousers: [],
      comparisonCount: 1,
      ratingWindow: { closesAt: null, targetRatingsPerComparison: null },
      collectRaterName: false,
      collectRaterEmail: false,
      endedAt: null,
      createdBy: null,
      createdAt: at,
      updatedAt: at,
      links: { preview: `${base}/preview`, review: `${base}/review`, results: `${base}/results` },
    };
  };
  const run = (status: "completed" | "failed") => ({
    id: id("arun"),
    evaluationId,
    autouserId: id("auto"),
    autouserType: "system",
    status,
    createdAt: at,
    startedAt: at,
    completedAt: at,
    ratingsCreated: status === "completed" ? 1 : 0,
    inputTokens: 1200,
    outputTokens: 300,
    estimatedCostUsd: 0.02,
    credentialSource: "platform",
    artifactsPath: null,
  });
  switch (type) {
    case "evaluation.created":
      return { ...evaluation(), status: "Draft" };
    case "evaluation.status_changed":
      return { ...evaluation(), previous_status: "Draft" };
    case "evaluation.completed":
      return {
        ...evaluation(),
        status: "Ended",
        endedAt: at,
        summary: {
          ratingCount: 3,
          autouserRatingCount: 1,
          humanRatingCount: 2,
          krippendorffAlpha: 0.82,
          completedRunCount: 1,
          failedRunCount: 0,
        },
      };
    case "evaluation.transferred_out":
    case "evaluation.transferred_in":
      return { ...evaluation(), previous_team_id: id("team") };
    case "autouser_run.completed":
      return run("completed");
    case "autouser_run.failed":
      return { ...run("failed"), error: "The stimulus URL did not load (test event)." };
    case "rating.created":
      return {
        id: id("rat"),
        object: "rating",
        evaluationId,
        comparisonId: id("cmp"),
        raterType: "user",
        userId: id("usr"),
        publicRaterId: null,
        autouserId: null,
        autouserRunId: null,
        rubricVersion: null,
        dimensionRatings: { overall: 6 },
        templateVersions: { overall: 1 },
        openTextResponses: { notes: "Clear layout." },
        factors: ["layout"],
        justification: "Easy to scan.",
        skipReason: null,
        timeSpentSeconds: 42,
        createdAt: at,
      };
    case "calibration.frozen":
      return {
        id: id("auto"),
        autouser: {
          id: id("auto"),
          name: "First-time shopper (test event)",
          calibrationStatus: "frozen",
          activeRubricId: id("rub"),
        },
        rubric: { id: id("rub"), version: 3, krippendorffAlpha: 0.79, frozenAt: at },
      };
  }
}

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 20);
}
