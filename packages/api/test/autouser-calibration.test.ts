import { type FixtureSite, startFixtureSite } from "@rubricon/agents/testing";
import { CalibrationFreezeResult, CalibrationStatus, Evaluation, Rating } from "@rubricon/contracts";
import { autouserRubrics, autousers, events, newId, ratings } from "@rubricon/db";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError, expectStatus } from "./helpers/assertions";
import { createEvaluationFor, insertAutouser, startAutouserServer, startRunLoop } from "./helpers/autousers";
import { bearer, bodyOf, call, mintApiKey, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import type { TestServer } from "./helpers/server";

let server: TestServer;
let site: FixtureSite;
let owner: TestUser;
let key: string;

beforeAll(async () => {
  [server, site] = await Promise.all([startAutouserServer(), startFixtureSite()]);
  owner = await signUp(server, "calibration");
  key = await mintApiKey(server, owner, ["evaluations:*", "autousers:*", "ratings:*"]);
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.close(), site?.close()]);
});

async function rate(evaluationId: string, comparisonId: string, overall: number, user: TestUser) {
  const res = await call(Rating, `${server.api}/evaluations/${evaluationId}/ratings`, {
    method: "POST",
    headers: sessionHeaders(server, user),
    body: { comparisonId, dimensionRatings: { overall } },
  });
  expectStatus(res, 201);
}

describe("calibrating an autouser against human ratings", () => {
  it("runs on the comparisons humans rated, measures alpha and bias with intervals, and freezes the rubric", async () => {
    const autouserId = await insertAutouser(server, owner.teamId);
    const rubricId = newId("rubric");
    await server.database.db.insert(autouserRubrics).values({
      id: rubricId,
      autouserId,
      dimensionId: "overall",
      name: "Overall as Dana",
      guidance: "Be strict.",
    });
    const evaluation = await createEvaluationFor(server, key, {
      name: "Humans rated",
      type: "SSE",
      status: "Running",
      allowMultipleRatings: true,
      designUrls: [{ url: site.urls.clean }, { url: site.urls.defects }, { url: site.urls.flowStart }],
    });
    const comparisonIds = (
      await server.database.db.query.comparisons.findMany({
        where: (c, { eq }) => eq(c.evaluationId, evaluation.id),
      })
    )
      .sort((a, b) => a.position - b.position)
      .map((c) => c.id);
    const second = await signUp(server, "calibration-second");
    await server.database.db.insert((await import("@rubricon/db")).teamMembers).values({
      teamId: owner.teamId,
      userId: second.userId,
      role: "member",
    });
    // Humans: the clean page good, the defective one poor; the third comparison unrated.
    await rate(evaluation.id, comparisonIds[0]!, 6, owner);
    await rate(evaluation.id, comparisonIds[0]!, 7, second);
    await rate(evaluation.id, comparisonIds[1]!, 2, owner);
    await rate(evaluation.id, comparisonIds[1]!, 3, second);

    const started = await call(CalibrationStatus, `${server.api}/autousers/${autouserId}/calibration`, {
      method: "POST",
      headers: bearer(key),
      body: { rubricId, evaluationId: evaluation.id, sampleSize: 10 },
    });
    expectStatus(started, 202);
    expect(started.body).toMatchObject({
      status: "running",
      rubricVersion: 1,
      progress: { comparisons: 2, rated: 0 },
    });

    const loop = startRunLoop(server);
    let status = started.body;
    try {
      const deadline = Date.now() + 60_000;
      while (status.status === "running" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 300));
        status = bodyOf(
          await call(CalibrationStatus, `${server.api}/autousers/${autouserId}/calibration`, {
            headers: bearer(key),
          }),
        );
      }
    } finally {
      await loop.stop();
    }
    expect(status).toMatchObject({ status: "completed", runStatus: "completed", progress: { rated: 2 } });
    const figures = status.figures!;
    expect(figures.comparisons).toBe(2);
    expect(figures.metric).toBe("interval");
    expect(figures.bias.overall!.comparisons).toBe(2);
    expect(Number.isFinite(figures.bias.overall!.mean)).toBe(true);
    expect(figures.bias.overall!.ci95!.lower).toBeLessThanOrEqual(figures.bias.overall!.mean);
    expect(figures.bias.overall!.ci95!.upper).toBeGreaterThanOrEqual(figures.bias.overall!.mean);
    // The heuristic judge ranks the clean page above the defective one, as the humans did: positive agreement.
    expect(figures.krippendorffAlpha).not.toBeNull();
    expect(figures.krippendorffAlpha!).toBeGreaterThan(0);
    // Calibration verdicts are not ratings of the evaluation.
    const autouserRatings = await server.database.db
      .select()
      .from(ratings)
      .where(and(eq(ratings.evaluationId, evaluation.id), eq(ratings.raterType, "autouser")));
    expect(autouserRatings).toEqual([]);

    const frozen = await call(
      CalibrationFreezeResult,
      `${server.api}/autousers/${autouserId}/calibration/freeze`,
      {
        method: "POST",
        headers: bearer(key),
        body: {},
      },
    );
    expectStatus(frozen, 200);
    expect(frozen.body.autouser).toMatchObject({ calibrationStatus: "frozen", activeRubricId: rubricId });
    expect(frozen.body.rubric).toMatchObject({
      id: rubricId,
      version: 1,
      isFrozen: true,
      krippendorffAlpha: figures.krippendorffAlpha,
    });
    const [row] = await server.database.db.select().from(autousers).where(eq(autousers.id, autouserId));
    expect(row).toMatchObject({ calibrationStatus: "frozen", activeRubricId: rubricId });
    const [event] = await server.database.db
      .select()
      .from(events)
      .where(and(eq(events.teamId, owner.teamId), eq(events.type, "calibration.frozen")));
    expect(event!.object).toMatchObject({
      autouser: { calibrationStatus: "frozen", activeRubricId: rubricId },
      rubric: { id: rubricId, version: 1, krippendorffAlpha: figures.krippendorffAlpha },
    });
    expect((event!.object as { rubric: { frozenAt: string } }).rubric.frozenAt).toBe(
      frozen.body.rubric.frozenAt,
    );

    // A frozen rubric is not frozen again: a change needs a new version.
    const again = await call(z.never(), `${server.api}/autousers/${autouserId}/calibration/freeze`, {
      method: "POST",
      headers: bearer(key),
      body: {},
    });
    expectError(again, 400, { type: "invalid_request_error", code: "parameter_invalid" });
    const still = bodyOf(
      await call(Evaluation, `${server.api}/evaluations/${evaluation.id}`, { headers: bearer(key) }),
    );
    expect(still.status).toBe("Running");
  }, 120_000);

  it("refuses an evaluation nobody rated, another team's autouser and an unknown rubric", async () => {
    const autouserId = await insertAutouser(server, owner.teamId);
    const rubricId = newId("rubric");
    await server.database.db
      .insert(autouserRubrics)
      .values({ id: rubricId, autouserId, dimensionId: "overall", name: "Overall" });
    const evaluation = await createEvaluationFor(server, key, {
      name: "Unrated",
      type: "SSE",
      designUrls: [{ url: site.urls.clean }],
    });
    const start = (id: string, body: Record<string, unknown>, k = key) =>
      call(z.never(), `${server.api}/autousers/${id}/calibration`, {
        method: "POST",
        headers: bearer(k),
        body,
      });
    const unrated = await start(autouserId, { rubricId, evaluationId: evaluation.id, sampleSize: 5 });
    expectError(unrated, 400, {
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "evaluationId",
    });
    const unknown = await start(autouserId, {
      rubricId: "rub_nope",
      evaluationId: evaluation.id,
      sampleSize: 5,
    });
    expectError(unknown, 404, { type: "not_found_error", code: "resource_not_found", param: "rubricId" });
    const other = await signUp(server, "calibration-other");
    const otherKey = await mintApiKey(server, other, ["evaluations:*", "autousers:*"]);
    const foreign = await call(z.never(), `${server.api}/autousers/${autouserId}/calibration`, {
      headers: bearer(otherKey),
    });
    expectError(foreign, 404, { type: "not_found_error", code: "autouser_not_found" });
    const none = await call(z.never(), `${server.api}/autousers/${autouserId}/calibration`, {
      headers: bearer(key),
    });
    expectError(none, 404, { type: "not_found_error", code: "resource_not_found" });
  });
});
