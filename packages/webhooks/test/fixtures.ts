import type { EvaluationCreatedEvent } from "../src";

export const SECRET = "whsec_c2VjcmV0LWZvci10ZXN0cy1vbmx5LWRvLW5vdC11c2U";
export const NEW_SECRET = "whsec_bmV3LXNlY3JldC1hZnRlci1yb3RhdGlvbg";
export const OTHER_SECRET = "whsec_c29tZWJvZHktZWxzZXMtc2VjcmV0";
export const NOW = 1_795_000_000;

export const evaluationCreated: EvaluationCreatedEvent = {
  id: "event_test_01jd2x8m4k",
  object: "event",
  type: "evaluation.created",
  api_version: "2026-11-01",
  created: NOW,
  team_id: "team_01jd2x",
  data: {
    object: {
      id: "eval_01jd2x",
      object: "evaluation",
      teamId: "team_01jd2x",
      name: "Checkout — größere Buttons ✓",
      description: null,
      type: "SSE",
      status: "Draft",
      shareAccess: "TEAM_ONLY",
      createdAt: "2026-11-22T10:00:00.000Z",
      updatedAt: "2026-11-22T10:00:00.000Z",
      links: {
        preview: "https://rubricon.example/evaluations/eval_01jd2x/preview",
        review: "https://rubricon.example/evaluations/eval_01jd2x/review",
        results: "https://rubricon.example/evaluations/eval_01jd2x/results",
      },
    },
  },
  request: { id: "req_01jd2x", idempotency_key: null },
};

/** Pretty-printed on purpose: a receiver that re-serialises it produces different bytes. */
export const BODY = JSON.stringify(evaluationCreated, null, 2);
