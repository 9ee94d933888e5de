import type { FixtureSite } from "@rubricon/agents/testing";
import { startFixtureSite } from "@rubricon/agents/testing";
import {
  AutouserRun,
  AutouserRunList,
  AutouserRunTurns,
  AutouserStatus,
  Evaluation,
  RatingList,
  RunArtifacts,
  StopAutousersResult,
  Usage,
} from "@rubricon/contracts";
import { events } from "@rubricon/db";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError, expectStatus } from "./helpers/assertions";
import {
  createEvaluationFor,
  insertAutouser,
  openRunStream,
  readUntil,
  readUntilEnd,
  runAutousers,
  startAutouserServer,
  startRunLoop,
} from "./helpers/autousers";
import { bearer, bodyOf, call, mintApiKey, signUp, type TestUser } from "./helpers/clients";
import type { TestServer } from "./helpers/server";

let server: TestServer;
let site: FixtureSite;
let owner: TestUser;
let key: string;
let autouserId: string;

beforeAll(async () => {
  [server, site] = await Promise.all([startAutouserServer(), startFixtureSite()]);
  owner = await signUp(server, "runs");
  key = await mintApiKey(server, owner, ["evaluations:*", "autousers:*", "ratings:read"]);
  autouserId = await insertAutouser(server, owner.teamId);
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.close(), site?.close()]);
});

async function eventsOf(teamId: string, type: string) {
  const rows = await server.database.db
    .select()
    .from(events)
    .where(and(eq(events.teamId, teamId), eq(events.type, type)))
    .orderBy(asc(events.createdAt));
  return rows.map((r) => r.object as Record<string, unknown>);
}

const get = <S extends z.ZodType>(schema: S, path: string) =>
  call(schema, `${server.api}${path}`, { headers: bearer(key) });

describe("an SSE evaluation rated by the heuristic judge", () => {
  it("queues, runs in a real browser, streams every step, rates each design once and ends the evaluation", async () => {
    const evaluation = await createEvaluationFor(server, key, {
      name: "Tea shop",
      type: "SSE",
      evaluationMethod: "ai",
      designUrls: [{ url: site.urls.clean }, { url: site.urls.defects }],
    });
    expect(evaluation.status).toBe("Draft");

    const queued = await runAutousers(
      server,
      key,
      evaluation.id,
      { autouserIds: [autouserId] },
      {
        "Idempotency-Key": "run-tea-1",
      },
    );
    expectStatus(queued, 202);
    const [run] = queued.body.data.runs;
    expect(run).toMatchObject({ status: "queued", autouserId, plannedRatings: 2, ratingsCreated: 0 });
    // The same key replays the answer: one batch of runs, not two.
    const replay = await runAutousers(
      server,
      key,
      evaluation.id,
      { autouserIds: [autouserId] },
      {
        "Idempotency-Key": "run-tea-1",
      },
    );
    expectStatus(replay, 202);
    expect(replay.body.data.runs.map((r) => r.id)).toEqual([run!.id]);
    const moved = bodyOf(await get(Evaluation, `/evaluations/${evaluation.id}`));
    expect(moved.status).toBe("Running");

    const stream = await openRunStream(server, key, evaluation.id);
    const loop = startRunLoop(server);
    try {
      const seen = await readUntilEnd(stream);
      const names = seen.map((e) => e.event);
      expect(names[0]).toBe("snapshot");
      expect((seen[0]!.data as { summary: { queued: number } }).summary.queued).toBe(1);
      expect(names.at(-1)).toBe("done");
      expect(names).toContain("started");
      expect(names.filter((n) => n === "rating")).toHaveLength(2);
      expect(names.filter((n) => n === "turn").length).toBeGreaterThanOrEqual(4);
      expect(names.at(-2)).toBe("completed");
      // Ids grow by one from the snapshot's.
      const ids = seen.filter((e) => e.id !== undefined && e.event !== "snapshot").map((e) => Number(e.id));
      const first = Number(seen[0]!.id);
      expect(ids).toEqual(ids.map((_, i) => first + 1 + i));

      // Resumed mid-way: exactly the events after the id given, then done.
      const middle = seen[3]!;
      const resumed = await readUntilEnd(await openRunStream(server, key, evaluation.id, middle.id));
      expect(resumed.map((e) => e.id).slice(0, -1)).toEqual(seen.slice(4, -1).map((e) => e.id));
      expect(resumed.at(-1)!.event).toBe("done");
    } finally {
      await loop.stop();
    }

    const done = bodyOf(await get(AutouserRun, `/evaluations/${evaluation.id}/autouser-runs/${run!.id}`));
    expect(done).toMatchObject({
      status: "completed",
      ratingsCreated: 2,
      attemptCount: 1,
      credentialSource: "heuristic",
      model: "heuristic-v15",
      inputTokens: 0,
      estimatedCostUsd: 0,
      artifactsPath: `/api/v1/evaluations/${evaluation.id}/autouser-runs/${run!.id}/artifacts`,
      error: null,
    });
    expect(done.completedAt).not.toBeNull();

    const list = bodyOf(await get(AutouserRunList, `/evaluations/${evaluation.id}/autouser-runs`));
    expect(list.data.map((r) => r.id)).toEqual([run!.id]);

    const turns = bodyOf(
      await get(AutouserRunTurns, `/evaluations/${evaluation.id}/autouser-runs/${run!.id}/turns`),
    );
    expect(turns.data.map((t) => t.action.type)).toEqual(["visit", "rate", "visit", "rate"]);
    expect(turns.data[0]!.url).toBe(site.urls.clean);
    expect(turns.data[0]!.screenshot).toMatch(/^turn-1-1\.png$/);
    for (const t of turns.data) expect(t.latencyMs).toBeGreaterThanOrEqual(0);

    const artifacts = bodyOf(
      await get(RunArtifacts, `/evaluations/${evaluation.id}/autouser-runs/${run!.id}/artifacts`),
    );
    expect(artifacts.data.map((a) => a.name)).toEqual(["turn-1-1.png", "turn-1-3.png"]);
    expect(artifacts.data[0]).toMatchObject({
      contentType: "image/png",
      turn: 1,
      fileId: turns.data[0]!.screenshotFileId,
    });
    expect(artifacts.data[0]!.size).toBeGreaterThan(1000);
    const shot = await fetch(artifacts.data[0]!.url);
    expect(shot.headers.get("content-type")).toBe("image/png");
    expect((await shot.arrayBuffer()).byteLength).toBe(artifacts.data[0]!.size);

    const ratings = bodyOf(
      await call(RatingList, `${server.api}/evaluations/${evaluation.id}/ratings?raterType=autouser`, {
        headers: bearer(key),
      }),
    );
    expect(ratings.data).toHaveLength(2);
    const byComparison = new Map(ratings.data.map((r) => [r.comparisonId, r]));
    expect(byComparison.size).toBe(2);
    for (const r of ratings.data) {
      expect(r).toMatchObject({ raterType: "autouser", autouserId, autouserRunId: run!.id });
      expect(r.dimensionRatings.overall).toBeGreaterThanOrEqual(1);
      expect(r.dimensionRatings.overall).toBeLessThanOrEqual(7);
    }
    // The clean page rates better than the one with known defects.
    const [cleanCmp, defectsCmp] = run!.comparisonIds;
    expect(byComparison.get(cleanCmp!)!.dimensionRatings.overall).toBeGreaterThan(
      byComparison.get(defectsCmp!)!.dimensionRatings.overall!,
    );

    const created = (await eventsOf(owner.teamId, "rating.created")).filter(
      (e) => e.autouserRunId === run!.id,
    );
    expect(created).toHaveLength(2);
    expect(created[0]).toMatchObject({ raterType: "autouser", autouserId, rubricVersion: null });
    const [completed] = await eventsOf(owner.teamId, "autouser_run.completed");
    expect(completed).toMatchObject({
      id: run!.id,
      status: "completed",
      autouserType: "team",
      ratingsCreated: 2,
      inputTokens: 0,
      outputTokens: 0,
      estimatedCostUsd: 0,
      credentialSource: "heuristic",
      artifactsPath: `/api/v1/evaluations/${evaluation.id}/autouser-runs/${run!.id}/artifacts`,
    });
    expect(completed!.error).toBeNull();

    // Only autousers rate (`ai`): the evaluation ends with the last run, and its summary counts the runs.
    expect(bodyOf(await get(Evaluation, `/evaluations/${evaluation.id}`)).status).toBe("Ended");
    const ended = (await eventsOf(owner.teamId, "evaluation.completed")).find((e) => e.id === evaluation.id);
    expect(ended?.summary).toMatchObject({ autouserRatingCount: 2, completedRunCount: 1, failedRunCount: 0 });

    const usage = bodyOf(await call(Usage, `${server.api}/usage`, { headers: bearer(key) }));
    expect(usage.used.autouser_ratings_mo).toBe(2);

    const status = bodyOf(await get(AutouserStatus, `/evaluations/${evaluation.id}/autouser-status`));
    expect(status).toMatchObject({
      summary: { total: 1, completed: 1, queued: 0, running: 0 },
      ratingsCreated: 2,
      plannedRatings: 2,
      progress: 1,
      estimatedSecondsLeft: null,
    });
  }, 120_000);
});

describe("a side-by-side evaluation", () => {
  it("visits both sides and rates the preference toward the better one", async () => {
    const evaluation = await createEvaluationFor(server, key, {
      name: "Clean or cluttered",
      type: "SxS",
      status: "Running",
      comparisonPairs: [{ currentUrl: site.urls.defects, variantUrl: site.urls.clean }],
    });
    const queued = await runAutousers(server, key, evaluation.id, { autouserIds: [autouserId] });
    expectStatus(queued, 202);
    const runId = queued.body.data.runs[0]!.id;
    const loop = startRunLoop(server);
    try {
      await readUntilEnd(await openRunStream(server, key, evaluation.id));
    } finally {
      await loop.stop();
    }
    const turns = bodyOf(
      await get(AutouserRunTurns, `/evaluations/${evaluation.id}/autouser-runs/${runId}/turns`),
    );
    expect(turns.data.map((t) => [t.action.type, t.side])).toEqual([
      ["visit", "A"],
      ["visit", "B"],
      ["rate", null],
    ]);
    const ratings = bodyOf(
      await call(RatingList, `${server.api}/evaluations/${evaluation.id}/ratings`, { headers: bearer(key) }),
    );
    expect(ratings.data).toHaveLength(1);
    // Side B (clean) is better: a positive preference.
    expect(ratings.data[0]!.dimensionRatings.overall).toBeGreaterThan(0);
    // Humans may still rate (`manual` method, no deadline): the evaluation stays Running.
    expect(bodyOf(await get(Evaluation, `/evaluations/${evaluation.id}`)).status).toBe("Running");
  }, 120_000);
});

describe("faults", () => {
  it("rates a page slower than the budget on what loaded, skips one that never answers, and goes on", async () => {
    const evaluation = await createEvaluationFor(server, key, {
      name: "Slow and silent",
      type: "SSE",
      designUrls: [{ url: site.urls.neverAnswers }, { url: site.urls.neverLoads }, { url: site.urls.clean }],
    });
    const queued = await runAutousers(server, key, evaluation.id, { autouserIds: [autouserId] });
    expectStatus(queued, 202);
    const runId = queued.body.data.runs[0]!.id;
    // A budget the intact page meets even on a busy machine; the other two outlast any budget.
    const loop = startRunLoop(server, { pageTimeoutMs: 10_000 });
    try {
      await readUntilEnd(await openRunStream(server, key, evaluation.id));
    } finally {
      await loop.stop();
    }
    const run = bodyOf(await get(AutouserRun, `/evaluations/${evaluation.id}/autouser-runs/${runId}`));
    expect(run).toMatchObject({ status: "completed", ratingsCreated: 2, error: null });
    const turns = bodyOf(
      await get(AutouserRunTurns, `/evaluations/${evaluation.id}/autouser-runs/${runId}/turns`),
    );
    const skipped = turns.data.find((t) => t.action.type === "done");
    expect(skipped?.detail).toBe(`skipped: ${site.urls.neverAnswers} did not finish loading within 10 s.`);
    expect(turns.data.filter((t) => t.action.type === "rate")).toHaveLength(2);
    const ratings = bodyOf(
      await call(RatingList, `${server.api}/evaluations/${evaluation.id}/ratings`, { headers: bearer(key) }),
    );
    expect(ratings.data).toHaveLength(2);
    const slow = ratings.data.find((r) => r.justification?.includes("had not finished loading after 10 s"));
    expect(slow).toBeDefined();
  }, 90_000);

  it("stops a running agent within seconds", async () => {
    const evaluation = await createEvaluationFor(server, key, {
      name: "Stop me",
      type: "SSE",
      designUrls: [{ url: site.urls.neverLoads }],
    });
    const queued = await runAutousers(server, key, evaluation.id, { autouserIds: [autouserId] });
    expectStatus(queued, 202);
    const runId = queued.body.data.runs[0]!.id;
    const stream = await openRunStream(server, key, evaluation.id);
    const loop = startRunLoop(server, { pageTimeoutMs: 60_000 });
    try {
      await readUntil(stream, "started", 30_000);
      const stopped = await call(
        StopAutousersResult,
        `${server.api}/evaluations/${evaluation.id}/stop-autousers`,
        {
          method: "POST",
          headers: bearer(key),
          body: {},
        },
      );
      expectStatus(stopped, 200);
      expect(stopped.body).toEqual({ object: "autouser_run_stop", cancelled: [runId], notCancelled: [] });
      const t0 = Date.now();
      const rest = await readUntilEnd(stream, 15_000);
      expect(rest.map((e) => e.event)).toEqual(["cancelled", "done"]);
      // The worker lets go of the browser within a few heartbeats: the loop stops promptly.
      await loop.stop();
      expect(Date.now() - t0).toBeLessThan(10_000);
    } finally {
      await loop.stop();
    }
    const run = bodyOf(await get(AutouserRun, `/evaluations/${evaluation.id}/autouser-runs/${runId}`));
    expect(run).toMatchObject({ status: "cancelled", ratingsCreated: 0 });
    const again = await call(
      StopAutousersResult,
      `${server.api}/evaluations/${evaluation.id}/stop-autousers`,
      {
        method: "POST",
        headers: bearer(key),
        body: { runIds: [runId] },
      },
    );
    expectStatus(again, 200);
    expect(again.body).toEqual({ object: "autouser_run_stop", cancelled: [], notCancelled: [runId] });
  }, 60_000);
});

describe("refusals", () => {
  it("refuses runs the team's autouser ratings cannot cover, before queueing anything", async () => {
    const free = await signUp(server, "runs-free", { plan: "free" });
    const freeKey = await mintApiKey(server, free, ["evaluations:*", "autousers:*"]);
    const evaluation = await createEvaluationFor(server, freeKey, {
      name: "Too big",
      type: "SSE",
      designUrls: [{ url: site.urls.clean }, { url: site.urls.defects }],
    });
    const res = await runAutousers(server, freeKey, evaluation.id, {
      autouserIds: [autouserId],
      agentCount: 26,
    });
    // autouserId is another team's: a 404 before any quota question.
    expectError(res, 404, { type: "not_found_error", code: "autouser_not_found" });
    expect(res.body.error.param).toBe("autouserIds");

    const own = await insertAutouser(server, free.teamId);
    const tooMany = await runAutousers(server, freeKey, evaluation.id, {
      autouserIds: [own],
      agentCount: 26,
    });
    expectError(tooMany, 429, { type: "rate_limit_error", code: "quota_exceeded" });
    expect(tooMany.headers.get("retry-after")).toBeNull();
    const runs = bodyOf(
      await call(AutouserRunList, `${server.api}/evaluations/${evaluation.id}/autouser-runs`, {
        headers: bearer(freeKey),
      }),
    );
    expect(runs.data).toEqual([]);
    expect(
      bodyOf(
        await call(Evaluation, `${server.api}/evaluations/${evaluation.id}`, { headers: bearer(freeKey) }),
      ).status,
    ).toBe("Draft");
    // 25 agents × 2 comparisons = 50, the Free plan's month: accepted; one more rating is not.
    const fits = await runAutousers(server, freeKey, evaluation.id, { autouserIds: [own], agentCount: 25 });
    expectStatus(fits, 202);
    expect(fits.body.plannedRatings).toBe(50);
    const more = await runAutousers(server, freeKey, evaluation.id, {
      autouserIds: [own],
      comparisonIds: [fits.body.data.runs[0]!.comparisonIds[0]],
    });
    expectError(more, 429, { type: "rate_limit_error", code: "quota_exceeded" });
    const stopped = await call(
      StopAutousersResult,
      `${server.api}/evaluations/${evaluation.id}/stop-autousers`,
      {
        method: "POST",
        headers: bearer(freeKey),
        body: {},
      },
    );
    expect(bodyOf(stopped).cancelled).toHaveLength(25);
  });

  it("hides another team's evaluation and runs, and names unknown comparisons", async () => {
    const other = await signUp(server, "runs-other");
    const otherKey = await mintApiKey(server, other, ["evaluations:*", "autousers:*"]);
    const evaluation = await createEvaluationFor(server, key, {
      name: "Private",
      type: "SSE",
      designUrls: [{ url: site.urls.clean }],
    });
    const theirs = await runAutousers(server, otherKey, evaluation.id, { autouserIds: [autouserId] });
    expectError(theirs, 404, { type: "not_found_error", code: "evaluation_not_found" });
    const unknown = await runAutousers(server, key, evaluation.id, {
      autouserIds: [autouserId],
      comparisonIds: ["cmp_nope"],
    });
    expectError(unknown, 400, { type: "invalid_request_error", code: "parameter_invalid" });
    expect(unknown.body.error.param).toBe("comparisonIds");
    const missingRun = await call(
      z.never(),
      `${server.api}/evaluations/${evaluation.id}/autouser-runs/arun_nope`,
      {
        headers: bearer(key),
      },
    );
    expectError(missingRun, 404, { type: "not_found_error", code: "autouser_run_not_found" });
    const stream = await call(z.never(), `${server.api}/evaluations/${evaluation.id}/autouser-stream`, {
      headers: bearer(otherKey),
    });
    expectError(stream, 404, { type: "not_found_error", code: "evaluation_not_found" });
  });

  it("queues the selected autousers when an evaluation moves to Running", async () => {
    const evaluation = await createEvaluationFor(server, key, {
      name: "Selected",
      type: "SSE",
      evaluationMethod: "both",
      selectedAutousers: [{ autouserId, agentCount: 2 }],
      designUrls: [{ url: site.urls.clean }],
    });
    const moved = await call(Evaluation, `${server.api}/evaluations/${evaluation.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { status: "Running" },
    });
    expectStatus(moved, 200);
    const runs = bodyOf(await get(AutouserRunList, `/evaluations/${evaluation.id}/autouser-runs`));
    expect(runs.data.map((r) => [r.status, r.agentIndex].join(":")).sort()).toEqual(["queued:0", "queued:1"]);
    // Ending the evaluation stops its runs.
    await call(Evaluation, `${server.api}/evaluations/${evaluation.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { status: "Ended" },
    });
    const after = bodyOf(await get(AutouserRunList, `/evaluations/${evaluation.id}/autouser-runs`));
    expect(after.data.map((r) => r.status)).toEqual(["cancelled", "cancelled"]);
  });
});
