import { describe, expect, expectTypeOf, it } from "vitest";
import {
  type AutouserRunFailedEvent,
  type CalibrationFrozenEvent,
  constructEvent,
  EVENT_TYPES,
  type EvaluationCompletedEvent,
  type EvaluationCreatedEvent,
  type EvaluationStatusChangedEvent,
  type EvaluationTransferredInEvent,
  type EventType,
  type EventTypeMap,
  generateTestHeader,
  type RatingCreatedEvent,
  type RubriconEvent,
  sign,
  type UnknownEvent,
  WebhookVerificationError,
} from "../src";
import { BODY, evaluationCreated, NOW, SECRET } from "./fixtures";

async function deliver(body: string) {
  return {
    body,
    headers: { "service-signature": await generateTestHeader({ payload: body, secret: SECRET }) },
  };
}

/** What a receiver typically writes; the type assertions are checked by `tsc`. */
function handle(event: RubriconEvent): string {
  switch (event.type) {
    case "evaluation.created":
      expectTypeOf(event).toEqualTypeOf<EvaluationCreatedEvent>();
      return `created ${event.data.object.name}`;
    case "evaluation.status_changed":
      expectTypeOf(event).toEqualTypeOf<EvaluationStatusChangedEvent>();
      return `${event.data.object.previous_status} -> ${event.data.object.status}`;
    case "evaluation.completed":
      expectTypeOf(event.data.object.summary.krippendorffAlpha).toEqualTypeOf<number | null>();
      return `alpha ${event.data.object.summary.krippendorffAlpha}`;
    case "autouser_run.completed":
      return `run ${event.data.object.id} ${event.data.object.status}`;
    case "autouser_run.failed":
      expectTypeOf(event).toEqualTypeOf<AutouserRunFailedEvent>();
      return `run failed: ${event.data.object.error}`;
    case "rating.created":
      expectTypeOf(event.data.object.dimensionRatings).toEqualTypeOf<Record<string, number>>();
      return `rating ${event.data.object.raterType}`;
    case "calibration.frozen":
      expectTypeOf(event).toEqualTypeOf<CalibrationFrozenEvent>();
      return "frozen";
    case "evaluation.transferred_out":
      return `left for ${event.data.object.teamId}`;
    case "evaluation.transferred_in":
      expectTypeOf(event).toEqualTypeOf<EvaluationTransferredInEvent>();
      return `arrived from ${event.data.object.previous_team_id}`;
    default:
      expectTypeOf(event).toEqualTypeOf<UnknownEvent>();
      expectTypeOf(event.data.object).toEqualTypeOf<Record<string, unknown>>();
      expectTypeOf(event.type).toMatchTypeOf<string>();
      return `ignored ${event.type}`;
  }
}

describe("constructEvent", () => {
  it("verifies and returns the parsed, typed event", async () => {
    const { body, headers } = await deliver(BODY);
    const event = await constructEvent(body, headers, SECRET);
    expect(event).toEqual(evaluationCreated);
    expect(handle(event)).toBe("created Checkout — größere Buttons ✓");
  });

  it("decodes byte bodies as UTF-8", async () => {
    const { headers } = await deliver(BODY);
    const event = await constructEvent(new TextEncoder().encode(BODY), headers, SECRET);
    expect(event).toEqual(evaluationCreated);
    const fromArrayBuffer = await constructEvent(new TextEncoder().encode(BODY).buffer, headers, SECRET);
    expect(fromArrayBuffer).toEqual(evaluationCreated);
  });

  it("passes unknown event types through for the receiver to ignore", async () => {
    const future = {
      ...evaluationCreated,
      type: "evaluation.archived_forever",
      data: { object: { id: "x" } },
    };
    const { body, headers } = await deliver(JSON.stringify(future));
    const event = await constructEvent(body, headers, SECRET);
    expect(handle(event)).toBe("ignored evaluation.archived_forever");
    expect(event.type as string).toBe("evaluation.archived_forever");
  });

  it("handles every known type", async () => {
    const objects: { [T in EventType]: EventTypeMap[T]["data"]["object"] } = {
      "evaluation.created": evaluationCreated.data.object,
      "evaluation.status_changed": {
        ...evaluationCreated.data.object,
        status: "Running",
        previous_status: "Draft",
      },
      "evaluation.completed": {
        ...evaluationCreated.data.object,
        status: "Ended",
        summary: {
          ratingCount: 4,
          autouserRatingCount: 3,
          humanRatingCount: 1,
          krippendorffAlpha: null,
          completedRunCount: 3,
          failedRunCount: 0,
        },
      },
      "autouser_run.completed": {
        id: "run_1",
        evaluationId: "eval_01jd2x",
        autouserId: "auto_1",
        status: "completed",
        createdAt: "2026-11-22T10:00:00.000Z",
        startedAt: "2026-11-22T10:00:01.000Z",
        completedAt: "2026-11-22T10:01:00.000Z",
      },
      "autouser_run.failed": {
        id: "run_2",
        evaluationId: "eval_01jd2x",
        autouserId: "auto_1",
        status: "failed",
        createdAt: "2026-11-22T10:00:00.000Z",
        startedAt: "2026-11-22T10:00:01.000Z",
        completedAt: null,
        error: "Page did not load",
      },
      "rating.created": {
        id: "rat_1",
        evaluationId: "eval_01jd2x",
        comparisonId: "cmp_1",
        raterType: "autouser",
        userId: null,
        autouserId: "auto_1",
        publicRaterId: null,
        autouserRunId: "run_1",
        dimensionRatings: { clarity: 4 },
        openTextResponses: {},
        factors: ["layout"],
        justification: "Clear hierarchy.",
        skipReason: null,
        timeSpentSeconds: 12,
        createdAt: "2026-11-22T10:01:00.000Z",
      },
      "calibration.frozen": { autouser: { id: "auto_1" }, rubric: { id: "rub_1" } },
      "evaluation.transferred_out": {
        ...evaluationCreated.data.object,
        teamId: "team_b",
        previous_team_id: "team_a",
      },
      "evaluation.transferred_in": {
        ...evaluationCreated.data.object,
        teamId: "team_b",
        previous_team_id: "team_a",
      },
    };
    const handled: string[] = [];
    for (const type of EVENT_TYPES) {
      const { body, headers } = await deliver(
        JSON.stringify({ ...evaluationCreated, type, data: { object: objects[type] } }),
      );
      handled.push(handle(await constructEvent(body, headers, SECRET)));
    }
    expect(handled).toEqual([
      "created Checkout — größere Buttons ✓",
      "Draft -> Running",
      "alpha null",
      "run run_1 completed",
      "run failed: Page did not load",
      "rating autouser",
      "frozen",
      "left for team_b",
      "arrived from team_a",
    ]);
    expectTypeOf<EvaluationCompletedEvent["type"]>().toEqualTypeOf<"evaluation.completed">();
    expectTypeOf<Extract<RubriconEvent, { type: "rating.created" }>>().toEqualTypeOf<RatingCreatedEvent>();
  });

  it("does not parse anything before the signature is verified", async () => {
    const { headers } = await deliver(BODY);
    await expect(constructEvent("{not json", headers, SECRET)).rejects.toMatchObject({
      reason: "no_matching_signature",
    });
  });

  it("refuses a correctly signed body that is not an event", async () => {
    for (const body of ["{not json", "[]", "null", '{"object":"event","id":"event_1","type":"x"}']) {
      const { headers } = await deliver(body);
      const error = await constructEvent(body, headers, SECRET).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect(error).toMatchObject({
        reason: "invalid_body",
        message: expect.stringMatching(/not a Rubricon event/),
      });
    }
  });

  it("applies the tolerance options", async () => {
    const { header } = await sign(BODY, SECRET, { timestamp: NOW });
    const headers = { "service-signature": header };
    await expect(constructEvent(BODY, headers, SECRET, { now: NOW + 299 })).resolves.toMatchObject({
      type: "evaluation.created",
    });
    await expect(
      constructEvent(BODY, headers, SECRET, { now: NOW + 30, toleranceSec: 10 }),
    ).rejects.toMatchObject({
      reason: "timestamp_outside_tolerance",
    });
  });
});
