import { request } from "node:http";
import {
  ComparisonList,
  EvaluationResults,
  EvaluationShare,
  Rating,
  RatingBulkDeleteResult,
  RatingList,
} from "@rubricon/contracts";
import { events, ratings, usageCounters } from "@rubricon/db";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation, expectError, expectStatus } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import { runningEvaluation } from "./helpers/ratings";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let user: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server, "rater");
  key = await mintApiKey(server, user, ["evaluations:*", "ratings:*", "templates:*"]);
});
afterAll(() => server?.close());

const rate = (evaluationId: string, body: unknown, k = key) =>
  call(Rating, `${server.api}/evaluations/${evaluationId}/ratings`, {
    method: "POST",
    headers: bearer(k),
    body,
  });

describe("submitting", () => {
  it("bounds a rating's free text: answers, their length, factors and the justification", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key));
    const base = { comparisonId: comparisonIds[0], dimensionRatings: { overall: 5 } };
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`q${i}`, "x"]));
    const cases: [Record<string, unknown>, string][] = [
      [{ openTextResponses: many }, "openTextResponses"],
      [{ openTextResponses: { notes: "x".repeat(5001) } }, "openTextResponses.notes"],
      [{ factors: Array.from({ length: 51 }, (_, i) => `f${i}`) }, "factors"],
      [{ justification: "x".repeat(5001) }, "justification"],
    ];
    for (const [extra, param] of cases) {
      const res = await rate(evaluation.id, { ...base, ...extra });
      expectError(res, 400, { type: "invalid_request_error", code: "parameter_invalid", param });
    }
    const within = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`q${i}`, "x".repeat(5000)]));
    expect((await rate(evaluation.id, { ...base, openTextResponses: within })).status).toBe(201);
  });

  it("stores a rating with the template versions it was made against, and writes rating.created", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key));
    const res = await rate(evaluation.id, {
      comparisonId: comparisonIds[0],
      dimensionRatings: { overall: 6 },
      openTextResponses: { notes: "Clear layout" },
      factors: ["layout"],
      justification: "Easy to scan",
      timeSpentSeconds: 42,
    });
    expectStatus(res, 201);
    const rating = res.body;
    expect(rating).toMatchObject({
      evaluationId: evaluation.id,
      comparisonId: comparisonIds[0],
      raterType: "user",
      userId: user.userId,
      publicRaterId: null,
      dimensionRatings: { overall: 6 },
      templateVersions: { overall: 1 },
      openTextResponses: { notes: "Clear layout" },
      factors: ["layout"],
      timeSpentSeconds: 42,
      skipReason: null,
    });
    const [event] = await server.database.db.select().from(events).where(eq(events.objectId, rating.id));
    expect(event).toMatchObject({ type: "rating.created", teamId: user.teamId });
    expect(event!.object).toMatchObject({
      id: rating.id,
      dimensionRatings: { overall: 6 },
      rubricVersion: null,
    });
    expect(event!.requestId).toBe(res.headers.get("x-request-id"));

    const got = await call(Rating, `${server.api}/evaluations/${evaluation.id}/ratings/${rating.id}`, {
      headers: bearer(key),
    });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it("answers a new rating, its event and later reads with the same bytes, keys in the stored order", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key));
    // Keys whose stored (jsonb) order is not the order sent: shorter first, then by their UTF-8 bytes.
    const openTextResponses = { zz: "1", a: "2", é: "3", ab: "4", b: "5", 日本: "6", longest_key: "7" };
    const res = await fetch(`${server.api}/evaluations/${evaluation.id}/ratings`, {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: JSON.stringify({
        comparisonId: comparisonIds[0],
        dimensionRatings: { overall: 3 },
        openTextResponses,
        factors: ["z", "a"],
      }),
    });
    expect(res.status).toBe(201);
    const posted = await res.text();
    const rating = Rating.parse(JSON.parse(posted));
    expect(Object.keys(rating.openTextResponses)).toEqual(["a", "b", "ab", "zz", "é", "日本", "longest_key"]);
    expect(rating.factors).toEqual(["z", "a"]);
    const got = await fetch(`${server.api}/evaluations/${evaluation.id}/ratings/${rating.id}`, {
      headers: bearer(key),
    });
    expect(await got.text()).toBe(posted);
    const [event] = await server.database.db.select().from(events).where(eq(events.objectId, rating.id));
    const delivered = JSON.parse(event!.payload!) as { data: { object: Record<string, unknown> } };
    const { rubricVersion, ...object } = delivered.data.object;
    expect(rubricVersion).toBeNull();
    expect(JSON.stringify(object)).toBe(posted);
  });

  it("counts human ratings against the team's monthly quota", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key));
    const counter = async () => {
      const rows = await server.database.db
        .select()
        .from(usageCounters)
        .where(and(eq(usageCounters.teamId, user.teamId), eq(usageCounters.metric, "human_ratings_mo")));
      return rows.reduce((n, r) => n + r.count, 0);
    };
    const before = await counter();
    expect(
      (await rate(evaluation.id, { comparisonId: comparisonIds[0], dimensionRatings: { overall: 3 } }))
        .status,
    ).toBe(201);
    expect(await counter()).toBe(before + 1);
  });

  it("validates values against the templates: scale, unknown and missing keys, skips", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key));
    const c = comparisonIds[0];
    expectError(await rate(evaluation.id, { comparisonId: c, dimensionRatings: { overall: 8 } }), 400, {
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "dimensionRatings.overall",
    });
    expectError(await rate(evaluation.id, { comparisonId: c, dimensionRatings: { overall: 0 } }), 400, {
      type: "invalid_request_error",
      param: "dimensionRatings.overall",
    });
    expectError(await rate(evaluation.id, { comparisonId: c, dimensionRatings: { overall: 4.5 } }), 400, {
      type: "invalid_request_error",
      param: "dimensionRatings.overall",
    });
    expectError(
      await rate(evaluation.id, { comparisonId: c, dimensionRatings: { overall: 4, usability: 3 } }),
      400,
      {
        type: "invalid_request_error",
        param: "dimensionRatings.usability",
      },
    );
    expectError(await rate(evaluation.id, { comparisonId: c, dimensionRatings: {} }), 400, {
      type: "invalid_request_error",
      code: "parameter_missing",
      param: "dimensionRatings.overall",
    });
    expectError(
      await rate(evaluation.id, {
        comparisonId: c,
        dimensionRatings: { overall: 4 },
        skipReason: "Broken page",
      }),
      400,
      { type: "invalid_request_error", param: "skipReason" },
    );
    expectError(
      await rate(evaluation.id, { comparisonId: "cmp_nope", dimensionRatings: { overall: 4 } }),
      400,
      {
        type: "invalid_request_error",
        param: "comparisonId",
      },
    );
    expectError(
      await rate(evaluation.id, { comparisonId: c, dimensionRatings: { overall: 4 }, extra: 1 }),
      400,
      {
        type: "invalid_request_error",
        code: "parameter_unknown",
        param: "extra",
      },
    );
    expectError(
      await rate(evaluation.id, { comparisonId: c, dimensionRatings: { overall: 4 }, timeSpentSeconds: -1 }),
      400,
      {
        type: "invalid_request_error",
        param: "timeSpentSeconds",
      },
    );
    const skipped = await rate(evaluation.id, { comparisonId: c, skipReason: "The page did not load" });
    expect(skipped.status).toBe(201);
    expect(skipped.body).toMatchObject({
      skipReason: "The page did not load",
      dimensionRatings: {},
      templateVersions: {},
    });
  });

  it("takes SxS preferences from -3 to +3 and rates every selected template", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      type: "SxS",
      extra: { selectedDimensionIds: ["overall", "usability"] },
    });
    const c = comparisonIds[0];
    expectError(
      await rate(evaluation.id, { comparisonId: c, dimensionRatings: { overall: -4, usability: 0 } }),
      400,
      {
        type: "invalid_request_error",
        param: "dimensionRatings.overall",
      },
    );
    expectError(await rate(evaluation.id, { comparisonId: c, dimensionRatings: { overall: 3 } }), 400, {
      type: "invalid_request_error",
      param: "dimensionRatings.usability",
    });
    const ok = await rate(evaluation.id, {
      comparisonId: c,
      dimensionRatings: { overall: -3, usability: 3 },
    });
    expectStatus(ok, 201);
    expect(ok.body.templateVersions).toEqual({ overall: 1, usability: 1 });
  });

  it("takes ratings only while Running", async () => {
    const draft = await createEvaluation(server.api, bearer(key), {
      name: "Draft",
      type: "SSE",
      designUrls: [{ url: "https://example.com/x" }],
    });
    const comps = await call(ComparisonList, `${server.api}/evaluations/${draft.id}/comparisons`, {
      headers: bearer(key),
    });
    expectError(
      await rate(draft.id, { comparisonId: bodyOf(comps).data[0]!.id, dimensionRatings: { overall: 4 } }),
      400,
      {
        type: "invalid_request_error",
        code: "evaluation_not_running",
      },
    );
  });

  it("allows one rating per rater and comparison unless allowMultipleRatings, even when sent at once", async () => {
    const single = await runningEvaluation(server, bearer(key));
    const body = { comparisonId: single.comparisonIds[0], dimensionRatings: { overall: 5 } };
    const results = await Promise.all([
      rate(single.evaluation.id, body),
      rate(single.evaluation.id, body),
      rate(single.evaluation.id, body),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expectError(results.find((r) => r.status === 409)!, 409, {
      type: "invalid_request_error",
      code: "rating_already_exists",
    });
    // Another comparison is fine.
    expect(
      (await rate(single.evaluation.id, { ...body, comparisonId: single.comparisonIds[1] })).status,
    ).toBe(201);

    const multi = await runningEvaluation(server, bearer(key), { extra: { allowMultipleRatings: true } });
    const again = { comparisonId: multi.comparisonIds[0], dimensionRatings: { overall: 5 } };
    expect((await rate(multi.evaluation.id, again)).status).toBe(201);
    expect((await rate(multi.evaluation.id, again)).status).toBe(201);
  });

  it("keeps one row when the same rater's rating comes from 20 connections at once, counted once", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key));
    const usage = async () =>
      (
        await server.database.db
          .select()
          .from(usageCounters)
          .where(and(eq(usageCounters.teamId, user.teamId), eq(usageCounters.metric, "human_ratings_mo")))
      ).reduce((n, r) => n + r.count, 0);
    const before = await usage();
    const body = JSON.stringify({ comparisonId: comparisonIds[0], dimensionRatings: { overall: 4 } });
    // Each request on its own connection (no shared keep-alive agent), all in flight together.
    const send = () =>
      new Promise<{ status: number; body: { error?: { type: string; code: string; param?: string } } }>(
        (resolve, reject) => {
          const req = request(
            `${server.api}/evaluations/${evaluation.id}/ratings`,
            {
              method: "POST",
              agent: false,
              headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
            },
            (res) => {
              let text = "";
              res.on("data", (chunk) => {
                text += chunk;
              });
              res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
            },
          );
          req.on("error", reject);
          req.end(body);
        },
      );
    const answers = await Promise.all(Array.from({ length: 20 }, send));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused).toHaveLength(19);
    for (const a of refused) {
      expect(a.status).toBe(409);
      expect(a.body.error).toMatchObject({
        type: "invalid_request_error",
        code: "rating_already_exists",
        param: "comparisonId",
      });
    }
    const rows = await server.database.db
      .select({ id: ratings.id })
      .from(ratings)
      .where(eq(ratings.evaluationId, evaluation.id));
    expect(rows).toHaveLength(1);
    expect(await usage()).toBe(before + 1);
    const created = await server.database.db
      .select({ id: events.id })
      .from(events)
      .where(and(eq(events.type, "rating.created"), eq(events.objectId, rows[0]!.id)));
    expect(created).toHaveLength(1);
  });

  it("counts every rating of a concurrent burst in the results, read between and after", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      extra: { allowMultipleRatings: true },
    });
    const results = async () =>
      bodyOf(
        await call(EvaluationResults, `${server.api}/evaluations/${evaluation.id}/results`, {
          headers: bearer(key),
        }),
      );
    expect((await results()).ratingCount).toBe(0);
    const burst = (n: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          rate(evaluation.id, { comparisonId: comparisonIds[0], dimensionRatings: { overall: (i % 7) + 1 } }),
        ),
      );
    expect((await burst(16)).every((r) => r.status === 201)).toBe(true);
    // Cached now; the next burst must make it stale however its ratings spread over the connections.
    expect((await results()).ratingCount).toBe(16);
    expect((await results()).ratingCount).toBe(16);
    expect((await burst(24)).every((r) => r.status === 201)).toBe(true);
    expect((await results()).ratingCount).toBe(40);
  });
});

describe("reading and deleting", () => {
  it("lists newest first with filters, and bulk-deletes reporting unknown ids", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      count: 3,
      extra: { allowMultipleRatings: true },
    });
    const ids: string[] = [];
    for (const [i, c] of comparisonIds.entries()) {
      const res = await rate(evaluation.id, { comparisonId: c, dimensionRatings: { overall: i + 1 } });
      ids.push(bodyOf(res).id);
    }
    const list = await call(RatingList, `${server.api}/evaluations/${evaluation.id}/ratings?limit=2`, {
      headers: bearer(key),
    });
    expectStatus(list, 200);
    const page = list.body;
    expect(page.data.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    expect(page.has_more).toBe(true);
    const next = await call(
      RatingList,
      `${server.api}/evaluations/${evaluation.id}/ratings?limit=2&starting_after=${page.next_cursor}`,
      {
        headers: bearer(key),
      },
    );
    expect(bodyOf(next).data.map((r) => r.id)).toEqual([ids[0]]);

    const filtered = await call(
      RatingList,
      `${server.api}/evaluations/${evaluation.id}/ratings?comparisonId=${comparisonIds[1]}`,
      {
        headers: bearer(key),
      },
    );
    expect(bodyOf(filtered).data.map((r) => r.id)).toEqual([ids[1]]);

    const del = await call(
      RatingBulkDeleteResult,
      `${server.api}/evaluations/${evaluation.id}/ratings/bulk-delete`,
      {
        method: "POST",
        headers: bearer(key),
        body: { ids: [ids[0], "rat_missing"] },
      },
    );
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ object: "rating_bulk_delete", deleted: [ids[0]], notFound: ["rat_missing"] });
    expectError(
      await call(Rating, `${server.api}/evaluations/${evaluation.id}/ratings/${ids[0]}`, {
        headers: bearer(key),
      }),
      404,
      {
        type: "not_found_error",
        code: "rating_not_found",
      },
    );
    // A cursor naming the deleted rating still works.
    const after = await call(
      RatingList,
      `${server.api}/evaluations/${evaluation.id}/ratings?starting_after=${ids[0]}`,
      {
        headers: bearer(key),
      },
    );
    expect(after.status).toBe(200);
    expectError(
      await call(RatingBulkDeleteResult, `${server.api}/evaluations/${evaluation.id}/ratings/bulk-delete`, {
        method: "POST",
        headers: bearer(key),
        body: { ids: [] },
      }),
      400,
      { type: "invalid_request_error", param: "ids" },
    );
  });

  it("checks each caller's access and the evaluation's state under the rating's lock once ratings arrive", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      extra: { allowMultipleRatings: true },
    });
    const body = (v: number) => ({ comparisonId: comparisonIds[0], dimensionRatings: { overall: v } });
    // The first rating lets the server know the evaluation; the callers after it are checked with the lock.
    expectStatus(await rate(evaluation.id, body(4)), 201);
    const stranger = await signUp(server, "lock-stranger");
    const strangerKey = await mintApiKey(server, stranger, ["*"]);
    expectError(await rate(evaluation.id, body(1), strangerKey), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
    // People it is shared with: a viewer may not rate, an editor may.
    const viewer = await signUp(server, "lock-viewer");
    const editor = await signUp(server, "lock-editor");
    for (const [who, permission] of [
      [viewer, "VIEWER"],
      [editor, "EDITOR"],
    ] as const) {
      expectStatus(
        await call(EvaluationShare, `${server.api}/evaluations/${evaluation.id}/shares`, {
          method: "POST",
          headers: bearer(key),
          body: { userId: who.userId, permission },
        }),
        201,
      );
    }
    const rateAs = (who: TestUser, v: number) =>
      call(Rating, `${server.api}/evaluations/${evaluation.id}/ratings`, {
        method: "POST",
        headers: sessionHeaders(server, who),
        body: body(v),
      });
    expectError(await rateAs(viewer, 2), 403, {
      type: "authorization_error",
      code: "insufficient_permission",
    });
    const byEditor = await rateAs(editor, 6);
    expectStatus(byEditor, 201);
    expect(byEditor.body.userId).toBe(editor.userId);
    const stored = await server.database.db
      .select()
      .from(ratings)
      .where(eq(ratings.evaluationId, evaluation.id));
    expect(stored.map((r) => r.userId).sort()).toEqual([user.userId, editor.userId].sort());

    // Ended since: refused as not running, the stranger still as not found.
    const ended = await fetch(`${server.api}/evaluations/${evaluation.id}`, {
      method: "PATCH",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: JSON.stringify({ status: "Ended" }),
    });
    expect(ended.status).toBe(200);
    expectError(await rate(evaluation.id, body(5)), 400, {
      type: "invalid_request_error",
      code: "evaluation_not_running",
    });
    expectError(await rate(evaluation.id, body(5), strangerKey), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
    expect(await server.database.db.$count(ratings, eq(ratings.evaluationId, evaluation.id))).toBe(2);
  });

  it("hides other teams' ratings and needs the ratings scopes", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key));
    const stranger = await signUp(server, "stranger");
    const strangerKey = await mintApiKey(server, stranger, ["*"]);
    expectError(
      await call(RatingList, `${server.api}/evaluations/${evaluation.id}/ratings`, {
        headers: bearer(strangerKey),
      }),
      404,
      {
        type: "not_found_error",
        code: "evaluation_not_found",
      },
    );
    expectError(
      await rate(
        evaluation.id,
        { comparisonId: comparisonIds[0], dimensionRatings: { overall: 2 } },
        strangerKey,
      ),
      404,
      {
        type: "not_found_error",
        code: "evaluation_not_found",
      },
    );
    const readOnly = await mintApiKey(server, user, ["ratings:read", "evaluations:read"]);
    const denied = await rate(
      evaluation.id,
      { comparisonId: comparisonIds[0], dimensionRatings: { overall: 2 } },
      readOnly,
    );
    expectError(denied, 403, { type: "authorization_error", code: "missing_required_scope" });
    expect(denied.body.error.message).toContain("ratings:write");
    const noRatings = await mintApiKey(server, user, ["evaluations:*"]);
    expectError(
      await call(RatingList, `${server.api}/evaluations/${evaluation.id}/ratings`, {
        headers: bearer(noRatings),
      }),
      403,
      {
        type: "authorization_error",
        code: "missing_required_scope",
      },
    );
  });
});
