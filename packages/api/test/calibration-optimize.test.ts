import { AutouserRubric, CalibrationOptimizeResult } from "@rubricon/contracts";
import {
  autouserCalibrations,
  autouserRubrics,
  autouserRuns,
  autouserRunTurns,
  autousers,
  newId,
  ratings,
} from "@rubricon/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, expectStatus } from "./helpers/assertions";
import { createEvaluationFor, insertAutouser } from "./helpers/autousers";
import { bearer, call, mintApiKey, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let owner: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer({
    sources: "it adds a system persona, which every team on a shared server lists",
  });
  owner = await signUp(server, "calibration-optimize");
  key = await mintApiKey(server, owner, ["evaluations:*", "autousers:*"]);
}, 60_000);
afterAll(async () => {
  await server?.close();
});

interface Constructed {
  autouserId: string;
  rubricId: string;
}

/**
 * A completed calibration built row by row: on `n` comparisons the humans rate `overall` and `visual` alike, the
 * autouser tracks them on `overall` but reads `visual` backwards.
 */
async function constructCalibration(
  n: number,
  opts: { status?: "running" | "completed"; weights?: Record<string, number> } = {},
): Promise<Constructed> {
  const db = server.database.db;
  const autouserId = await insertAutouser(server, owner.teamId);
  const rubricId = newId("rubric");
  await db.insert(autouserRubrics).values({
    id: rubricId,
    autouserId,
    dimensionId: "overall",
    name: "Overall as Dana",
    guidance: "Be strict.",
    weights: opts.weights ?? {},
  });
  const evaluation = await createEvaluationFor(server, key, {
    name: "Humans rated",
    type: "SSE",
    allowMultipleRatings: true,
    designUrls: Array.from({ length: n }, (_, i) => ({ url: `https://example.com/page-${i}` })),
  });
  const comparisonIds = (
    await db.query.comparisons.findMany({ where: (c, { eq }) => eq(c.evaluationId, evaluation.id) })
  )
    .sort((a, b) => a.position - b.position)
    .map((c) => c.id);
  expect(comparisonIds).toHaveLength(n);
  const calibrationId = newId("calibration");
  const status = opts.status ?? "completed";
  await db.insert(autouserCalibrations).values({
    id: calibrationId,
    teamId: owner.teamId,
    autouserId,
    rubricId,
    rubricVersion: 1,
    evaluationId: evaluation.id,
    sampleSize: n,
    status,
  });
  const runId = newId("autouserRun");
  await db.insert(autouserRuns).values({
    id: runId,
    teamId: owner.teamId,
    evaluationId: evaluation.id,
    autouserId,
    autouserType: "team",
    purpose: "calibration",
    calibrationId,
    comparisonIds,
    status: status === "completed" ? "completed" : "running",
  });
  for (const [i, comparisonId] of comparisonIds.entries()) {
    const human = 1 + (i % 7);
    for (const offset of [0, 1]) {
      await db.insert(ratings).values({
        id: newId("rating"),
        evaluationId: evaluation.id,
        comparisonId,
        teamId: owner.teamId,
        raterType: "user",
        userId: owner.userId,
        dimensionRatings: { overall: human + offset * 0.5, visual: human + offset * 0.5 },
        templateVersions: {},
        openTextResponses: {},
        factors: [],
      });
    }
    await db.insert(autouserRunTurns).values({
      id: newId("autouserRunTurn"),
      runId,
      attempt: 1,
      turn: i + 1,
      comparisonId,
      action: { type: "verdict", ratings: { overall: human + (i % 2), visual: 8 - human } },
    });
  }
  return { autouserId, rubricId };
}

function optimize(autouserId: string, headers = bearer(key)) {
  return call(CalibrationOptimizeResult, `${server.api}/autousers/${autouserId}/calibration/optimize`, {
    method: "POST",
    headers,
    body: {},
  });
}

describe("POST /autousers/{id}/calibration/optimize", () => {
  it("weighs down the template the autouser reads unlike the humans, and held-out alpha rises", async () => {
    const { autouserId, rubricId } = await constructCalibration(20);
    const res = await optimize(autouserId);
    expectStatus(res, 200);
    const body = res.body as CalibrationOptimizeResult;
    expect(body.split).toEqual({ seed: 31, fit: 14, heldOut: 6 });
    expect(body.before.weights).toEqual({ overall: 1, visual: 1 });
    expect(body.after.weights.visual).toBe(0);
    expect(body.after.weights.overall).toBeGreaterThan(0);
    // Held out: the equal weights cancel the autouser's two readings; without `visual` it tracks the humans.
    expect(body.before.krippendorffAlpha).not.toBeNull();
    expect(body.after.krippendorffAlpha!).toBeGreaterThan(body.before.krippendorffAlpha! + 0.5);
    expect(body.after.krippendorffAlpha!).toBeGreaterThan(0.8);
    expect(body.after.alphaCi95).not.toBeNull();
    expect(body.after.alphaCi95!.lower).toBeLessThanOrEqual(body.after.krippendorffAlpha!);
    expect(body.after.alphaCi95!.upper).toBeGreaterThanOrEqual(body.after.krippendorffAlpha!);
    expect(body.search.fitAlphaAfter!).toBeGreaterThan(body.search.fitAlphaBefore!);
    expect(body.search.evaluations).toBeLessThanOrEqual(8 * 2 * body.search.grid.length + 1);

    // The proposal is the next, unfrozen version of the calibrated rubric; nothing is frozen or made active.
    expect(body.rubric).toMatchObject({
      autouserId,
      dimensionId: "overall",
      name: "Overall as Dana",
      guidance: "Be strict.",
      version: 2,
      isFrozen: false,
      frozenAt: null,
      weights: body.after.weights,
    });
    expect(body.rubric.id).not.toBe(rubricId);
    const [autouser] = await server.database.db.select().from(autousers).where(eq(autousers.id, autouserId));
    expect(autouser).toMatchObject({ activeRubricId: null, calibrationStatus: "uncalibrated" });
    const [original] = await server.database.db
      .select()
      .from(autouserRubrics)
      .where(eq(autouserRubrics.id, rubricId));
    expect(original).toMatchObject({ version: 1, weights: {}, isFrozen: false });
    const listed = await call(
      AutouserRubric,
      `${server.api}/autousers/${autouserId}/rubrics/${body.rubric.id}`,
      { headers: bearer(key) },
    );
    expectStatus(listed, 200);
    expect((listed.body as AutouserRubric).weights).toEqual(body.after.weights);
  });

  it("gives the same answer twice (seeded split, search and bootstrap)", async () => {
    const { autouserId } = await constructCalibration(12, { weights: { overall: 2, contrast: 1.5 } });
    const first = await optimize(autouserId);
    const second = await optimize(autouserId);
    expectStatus(first, 200);
    expectStatus(second, 200);
    const a = first.body as CalibrationOptimizeResult;
    const b = second.body as CalibrationOptimizeResult;
    expect({ ...b, rubric: undefined }).toEqual({ ...a, rubric: undefined });
    expect(a.before.weights).toEqual({ overall: 2, visual: 1 });
    // Weights of signals the search does not touch are kept on the proposal.
    expect(a.rubric.weights).toEqual({ contrast: 1.5, ...a.after.weights });
    expect(b.rubric.weights).toEqual(a.rubric.weights);
    expect([a.rubric.version, b.rubric.version]).toEqual([2, 3]);
  });

  it("is a 409 before any calibration, and while one runs", async () => {
    const fresh = await insertAutouser(server, owner.teamId);
    expectError(await optimize(fresh), 409, {
      type: "invalid_request_error",
      code: "calibration_not_completed",
    });
    const { autouserId } = await constructCalibration(8, { status: "running" });
    const res = await optimize(autouserId);
    expectError(res, 409, { type: "invalid_request_error", code: "calibration_not_completed" });
    expect(res.ok ? "" : res.body.error.message).toMatch(/still running/);
  });

  it("is a 422 when too few comparisons carry both ratings to split", async () => {
    const { autouserId } = await constructCalibration(5);
    const res = await optimize(autouserId);
    expectError(res, 422, { type: "invalid_request_error", code: "calibration_too_few_pairs" });
    const rubrics = await server.database.db
      .select()
      .from(autouserRubrics)
      .where(eq(autouserRubrics.autouserId, autouserId));
    expect(rubrics).toHaveLength(1);
  });

  it("is a 404 for an unknown autouser, another team's, or a system persona", async () => {
    expectError(await optimize("auto_missing"), 404, { type: "not_found_error", code: "autouser_not_found" });
    const { autouserId } = await constructCalibration(6);
    const stranger = await signUp(server, "calibration-optimize-stranger");
    const strangerKey = await mintApiKey(server, stranger, ["autousers:*"]);
    expectError(await optimize(autouserId, bearer(strangerKey)), 404, {
      type: "not_found_error",
      code: "autouser_not_found",
    });
    const system = await insertAutouser(server, null, "System persona");
    expectError(await optimize(system), 404, { type: "not_found_error", code: "autouser_not_found" });
  });

  it("needs autousers:write", async () => {
    const { autouserId } = await constructCalibration(6);
    const readOnly = await mintApiKey(server, owner, ["autousers:read"]);
    expectError(await optimize(autouserId, bearer(readOnly)), 403, { type: "authorization_error" });
  });
});
