import { Evaluation, Rating, RatingBulkDeleteResult } from "@rubricon/contracts";
import { closeDueEvaluations, fixedClock } from "@rubricon/core";
import { events } from "@rubricon/db";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, expectStatus } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, signUp, type TestUser } from "./helpers/clients";
import { runningEvaluation } from "./helpers/ratings";
import { startTestServer, type TestServer } from "./helpers/server";

const clock = fixedClock(new Date("2026-11-20T12:00:00Z"));
let server: TestServer;
let user: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ clock });
  user = await signUp(server, "lifecycle");
  key = await mintApiKey(server, user, ["evaluations:*", "ratings:*"]);
});
afterAll(() => server?.close());

const rate = (evaluationId: string, body: unknown, k = key) =>
  call(Rating, `${server.api}/evaluations/${evaluationId}/ratings`, {
    method: "POST",
    headers: bearer(k),
    body,
  });
const eventsOf = (id: string) =>
  server.database.db
    .select()
    .from(events)
    .where(eq(events.objectId, id))
    .orderBy(asc(events.createdAt), asc(events.id));
const core = () => ({ db: server.database.db, clock, baseUrl: server.url });

describe("ending an evaluation", () => {
  it("ends once every comparison reaches the target of human ratings, with status_changed and completed", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      extra: { targetRatingsPerComparison: 1, allowMultipleRatings: true },
    });
    expect(evaluation.ratingWindow.targetRatingsPerComparison).toBe(1);
    expect(
      (await rate(evaluation.id, { comparisonId: comparisonIds[0], dimensionRatings: { overall: 5 } }))
        .status,
    ).toBe(201);
    // A skipped rating does not count toward the target.
    expect(
      (await rate(evaluation.id, { comparisonId: comparisonIds[1], skipReason: "Blank page" })).status,
    ).toBe(201);
    expect(
      bodyOf(await call(Evaluation, `${server.api}/evaluations/${evaluation.id}`, { headers: bearer(key) }))
        .status,
    ).toBe("Running");
    expect(
      (await rate(evaluation.id, { comparisonId: comparisonIds[1], dimensionRatings: { overall: 7 } }))
        .status,
    ).toBe(201);

    const after = bodyOf(
      await call(Evaluation, `${server.api}/evaluations/${evaluation.id}`, { headers: bearer(key) }),
    );
    expect(after.status).toBe("Ended");
    expect(after.endedAt).toBe(clock.now().toISOString());
    // The injected clock stands still, so the three events share a timestamp: compare them as a set.
    const all = await eventsOf(evaluation.id);
    expect(all.map((e) => e.type).sort()).toEqual([
      "evaluation.completed",
      "evaluation.created",
      "evaluation.status_changed",
    ]);
    const completed = all.find((e) => e.type === "evaluation.completed")!;
    expect(completed.object).toMatchObject({
      status: "Ended",
      summary: {
        ratingCount: 3,
        humanRatingCount: 3,
        autouserRatingCount: 0,
        completedRunCount: 0,
        failedRunCount: 0,
      },
    });
    expect((completed.object as { summary: { krippendorffAlpha: unknown } }).summary).toHaveProperty(
      "krippendorffAlpha",
    );
    const changed = all.find((e) => e.type === "evaluation.status_changed")!;
    expect(changed.object).toMatchObject({ previous_status: "Running", status: "Ended" });

    // Ended is read-only: no ratings, no deletes, no edits; archiving still works.
    expectError(
      await rate(evaluation.id, { comparisonId: comparisonIds[0], dimensionRatings: { overall: 1 } }),
      400,
      {
        type: "invalid_request_error",
        code: "evaluation_not_running",
      },
    );
    expectError(
      await call(RatingBulkDeleteResult, `${server.api}/evaluations/${evaluation.id}/ratings/bulk-delete`, {
        method: "POST",
        headers: bearer(key),
        body: { ids: ["rat_x"] },
      }),
      400,
      { type: "invalid_request_error", code: "evaluation_not_running" },
    );
    expectError(
      await call(Evaluation, `${server.api}/evaluations/${evaluation.id}`, {
        method: "PATCH",
        headers: bearer(key),
        body: { name: "x" },
      }),
      400,
      { type: "invalid_request_error", code: "evaluation_not_editable" },
    );
  });

  it("ends at the rating deadline through the sweep, and refuses ratings after it even before the sweep", async () => {
    const deadline = new Date(clock.now().getTime() + 60 * 60 * 1000);
    const swept = await runningEvaluation(server, bearer(key), {
      extra: { ratingDeadline: deadline.toISOString() },
    });
    const late = await runningEvaluation(server, bearer(key), {
      extra: { ratingDeadline: deadline.toISOString() },
    });
    expect(swept.evaluation.ratingWindow.closesAt).toBe(deadline.toISOString());
    expect(
      (
        await rate(swept.evaluation.id, {
          comparisonId: swept.comparisonIds[0],
          dimensionRatings: { overall: 4 },
        })
      ).status,
    ).toBe(201);
    expect(await closeDueEvaluations(core())).toBe(0);

    clock.set(new Date(deadline.getTime() + 1000));
    // A rating arriving after the deadline ends the evaluation itself.
    expectError(
      await rate(late.evaluation.id, {
        comparisonId: late.comparisonIds[0],
        dimensionRatings: { overall: 4 },
      }),
      400,
      {
        type: "invalid_request_error",
        code: "evaluation_not_running",
      },
    );
    expect(
      bodyOf(
        await call(Evaluation, `${server.api}/evaluations/${late.evaluation.id}`, { headers: bearer(key) }),
      ).status,
    ).toBe("Ended");

    expect(await closeDueEvaluations(core())).toBeGreaterThanOrEqual(1);
    const ended = await call(Evaluation, `${server.api}/evaluations/${swept.evaluation.id}`, {
      headers: bearer(key),
    });
    expect(bodyOf(ended).status).toBe("Ended");
    const completed = (await eventsOf(swept.evaluation.id)).find((e) => e.type === "evaluation.completed");
    expect(completed?.object).toMatchObject({ summary: { ratingCount: 1, humanRatingCount: 1 } });
    // Each evaluation is ended exactly once.
    expect(await closeDueEvaluations(core())).toBe(0);
    expect(
      (await eventsOf(late.evaluation.id)).filter((e) => e.type === "evaluation.completed"),
    ).toHaveLength(1);
  });

  it("ends by PATCH with the same two events", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key));
    await rate(evaluation.id, { comparisonId: comparisonIds[0], dimensionRatings: { overall: 2 } });
    const res = await call(Evaluation, `${server.api}/evaluations/${evaluation.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { status: "Ended" },
    });
    expectStatus(res, 200);
    expect(res.body.status).toBe("Ended");
    const types = (await eventsOf(evaluation.id)).map((e) => e.type);
    expect(types.sort()).toEqual(["evaluation.completed", "evaluation.created", "evaluation.status_changed"]);
  });

  it("validates the window settings", async () => {
    expectError(
      await call(Evaluation, `${server.api}/evaluations`, {
        method: "POST",
        headers: bearer(key),
        body: { name: "x", type: "SSE", targetRatingsPerComparison: 0 },
      }),
      400,
      { type: "invalid_request_error", param: "targetRatingsPerComparison" },
    );
    expectError(
      await call(Evaluation, `${server.api}/evaluations`, {
        method: "POST",
        headers: bearer(key),
        body: { name: "x", type: "SSE", ratingDeadline: "tomorrow" },
      }),
      400,
      { type: "invalid_request_error", param: "ratingDeadline" },
    );
  });
});
