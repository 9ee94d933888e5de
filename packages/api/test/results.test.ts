import { EvaluationAgreement, EvaluationResults, Rating, Template } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RatingExport } from "../src/routers/results";
import { expectError, expectStatus } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, signUp, type TestUser } from "./helpers/clients";
import { runningEvaluation, shareRate, startPublicRater } from "./helpers/ratings";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let user: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server, "results");
  key = await mintApiKey(server, user, ["evaluations:*", "ratings:*", "templates:*"]);
});
afterAll(() => server?.close());

const rate = (evaluationId: string, body: unknown) =>
  call(Rating, `${server.api}/evaluations/${evaluationId}/ratings`, {
    method: "POST",
    headers: bearer(key),
    body,
  });
const results = async (id: string) => {
  const res = await call(EvaluationResults, `${server.api}/evaluations/${id}/results`, {
    headers: bearer(key),
  });
  expectStatus(res, 200);
  return res.body;
};

describe("results", () => {
  it("gives SSE distribution, mean, standard deviation and a t-based 95% interval, excluding skips", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      extra: { allowMultipleRatings: true },
    });
    for (const v of [5, 6, 7])
      await rate(evaluation.id, { comparisonId: comparisonIds[0], dimensionRatings: { overall: v } });
    await rate(evaluation.id, { comparisonId: comparisonIds[1], skipReason: "Did not load" });

    const r = await results(evaluation.id);
    expect(r).toMatchObject({
      ratingCount: 4,
      humanRatingCount: 4,
      autouserRatingCount: 0,
      excludedCount: 1,
    });
    const [overall] = r.dimensions;
    if (overall?.kind !== "sse") throw new Error("expected an SSE dimension");
    expect(overall).toMatchObject({
      templateId: "overall",
      n: 3,
      scaleMin: 1,
      scaleMax: 7,
      mean: 6,
      stdDev: 1,
    });
    expect(overall.distribution).toEqual({ "1": 0, "2": 0, "3": 0, "4": 0, "5": 1, "6": 1, "7": 1 });
    // 6 ± t(0.975, 2) · 1/√3 = 6 ± 4.303 · 0.5774 = 3.516 to 8.484: a mean of 1-7 scores cannot pass 7, so the
    // interval is cut there and says so.
    expect(overall.ci95!.lower).toBeCloseTo(3.516, 3);
    expect(overall.ci95).toMatchObject({ upper: 7, clipped: true });
    const [first, second] = r.perComparison;
    expect(first).toMatchObject({ comparisonId: comparisonIds[0], ratingCount: 3, excludedCount: 0 });
    expect(first!.dimensions.overall).toEqual({ n: 3, mean: 6 });
    expect(second).toMatchObject({ ratingCount: 1, excludedCount: 1 });
    expect(second!.dimensions.overall).toEqual({ n: 0, mean: null });
    expect(r.perRater).toEqual([
      expect.objectContaining({ raterType: "user", raterId: user.userId, ratingCount: 4, excludedCount: 1 }),
    ]);
  });

  it("gives SxS wins, ties, the mean preference with its interval and a winner", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      type: "SxS",
      extra: { allowMultipleRatings: true },
    });
    for (const v of [-3, -2, -3, -1]) {
      await rate(evaluation.id, { comparisonId: comparisonIds[0], dimensionRatings: { overall: v } });
    }
    const r = await results(evaluation.id);
    const [overall] = r.dimensions;
    if (overall?.kind !== "sxs") throw new Error("expected an SxS dimension");
    expect(overall).toMatchObject({
      n: 4,
      sideAWins: 4,
      sideBWins: 0,
      ties: 0,
      meanPreference: -2.25,
      winner: "A",
    });
    // -2.25 ± t(0.975, 3) · s/√4 with s = 0.9574 = -3.773 to -0.727, cut to the preference scale at -3.
    expect(overall.ci95).toMatchObject({ lower: -3, clipped: true });
    expect(overall.ci95!.upper).toBeCloseTo(-0.727, 2);
    expect(overall.distribution).toEqual({ "-3": 2, "-2": 1, "-1": 1, "0": 0, "1": 0, "2": 0, "3": 0 });

    // Mixed preferences leave the interval across 0: no winner.
    const mixed = await runningEvaluation(server, bearer(key), {
      type: "SxS",
      extra: { allowMultipleRatings: true },
    });
    for (const v of [-2, 2, 0, 1]) {
      await rate(mixed.evaluation.id, {
        comparisonId: mixed.comparisonIds[0],
        dimensionRatings: { overall: v },
      });
    }
    const m = (await results(mixed.evaluation.id)).dimensions[0];
    expect(m).toMatchObject({ sideAWins: 1, sideBWins: 2, ties: 1, winner: "inconclusive" });
    // 0.25 ± t(0.975, 3) · 1.708/√4: -2.47 to 2.97, inside the scale, so not cut.
    expect(m!.ci95).toMatchObject({ clipped: false });
    expect(m!.ci95!.lower).toBeCloseTo(-2.468, 2);
    expect(m!.ci95!.upper).toBeCloseTo(2.968, 2);
  });

  it("caches results and recomputes them when the ratings change", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      extra: { allowMultipleRatings: true },
    });
    await rate(evaluation.id, { comparisonId: comparisonIds[0], dimensionRatings: { overall: 2 } });
    const first = await results(evaluation.id);
    const again = await results(evaluation.id);
    expect(again).toEqual(first);
    await rate(evaluation.id, { comparisonId: comparisonIds[0], dimensionRatings: { overall: 4 } });
    const third = await results(evaluation.id);
    expect(third.ratingCount).toBe(2);
    expect(third.dimensions[0]).toMatchObject({ mean: 3 });
  });
});

/**
 * Results and agreement are answered without parsing them again (`trustedOutput`), and a cached payload's text is
 * sent again: the body must be byte for byte what parsing it with the route's schema and serializing answers.
 */
async function schemaBytes(schema: typeof EvaluationResults | typeof EvaluationAgreement, path: string) {
  const res = await fetch(`${server.api}${path}`, { headers: bearer(key) });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(text).toBe(JSON.stringify(schema.parse(JSON.parse(text))));
  return text;
}

describe("trusted outputs", () => {
  it("answer the schemas' bytes when computed, cached in the process and read back from Postgres", async () => {
    const sse = await runningEvaluation(server, bearer(key), { extra: { allowMultipleRatings: true } });
    const sxs = await runningEvaluation(server, bearer(key), {
      type: "SxS",
      extra: { allowMultipleRatings: true },
    });
    for (const [i, v] of [3, 4, 4, 6].entries()) {
      await rate(sse.evaluation.id, {
        comparisonId: sse.comparisonIds[i % 2],
        dimensionRatings: { overall: v },
      });
    }
    await rate(sse.evaluation.id, { comparisonId: sse.comparisonIds[1], skipReason: "Did not load" });
    await rate(sxs.evaluation.id, { comparisonId: sxs.comparisonIds[0], dimensionRatings: { overall: 2 } });
    const paths = [
      [EvaluationResults, `/evaluations/${sse.evaluation.id}/results`],
      [EvaluationAgreement, `/evaluations/${sse.evaluation.id}/agreement`],
      [EvaluationAgreement, `/evaluations/${sse.evaluation.id}/agreement?metric=interval`],
      [EvaluationResults, `/evaluations/${sxs.evaluation.id}/results`],
      [EvaluationAgreement, `/evaluations/${sxs.evaluation.id}/agreement`],
    ] as const;
    const computed: string[] = [];
    for (const [schema, path] of paths) computed.push(await schemaBytes(schema, path));
    // Answered again from the process's cache: the same text.
    for (const [i, [schema, path]] of paths.entries())
      expect(await schemaBytes(schema, path)).toBe(computed[i]);
    // Other payloads push these out of the process's cache (it keeps 16), so the next reads come back from
    // Postgres, whose jsonb keeps keys in an order of its own.
    for (let i = 0; i < 4; i++) {
      const other = await runningEvaluation(server, bearer(key));
      for (const metric of ["nominal", "ordinal", "interval", "ratio"]) {
        const res = await fetch(
          `${server.api}/evaluations/${other.evaluation.id}/agreement?metric=${metric}`,
          {
            headers: bearer(key),
          },
        );
        expect(res.status).toBe(200);
      }
    }
    for (const [i, [schema, path]] of paths.entries())
      expect(await schemaBytes(schema, path)).toBe(computed[i]);
  });
});

describe("cached results", () => {
  it("answer the computed answer's UTF-8 bytes again, and new bytes once a rating arrives", async () => {
    // A name outside ASCII: the cached body is kept as encoded bytes, so its encoding is checked byte for byte.
    const template = await call(Template, `${server.api}/templates`, {
      method: "POST",
      headers: bearer(key),
      body: {
        teamId: user.teamId,
        name: "Qualité — 質感",
        scaleType: "FIVE_POINT",
        scaleMin: 1,
        scaleMax: 5,
      },
    });
    expectStatus(template, 201);
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      extra: { allowMultipleRatings: true, selectedDimensionIds: [template.body.id] },
    });
    const read = async () => {
      const res = await fetch(`${server.api}/evaluations/${evaluation.id}/results`, { headers: bearer(key) });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
      return Buffer.from(await res.arrayBuffer());
    };
    const rateOne = async (v: number) => {
      const res = await rate(evaluation.id, {
        comparisonId: comparisonIds[0],
        dimensionRatings: { [template.body.id]: v },
      });
      expectStatus(res, 201);
    };
    await rateOne(2);
    const computed = await read();
    const parsed = EvaluationResults.parse(JSON.parse(computed.toString("utf8")));
    expect(parsed.dimensions[0]!.name).toBe("Qualité — 質感");
    // The uncached answer is the schema's serialization, encoded as UTF-8.
    expect(computed.equals(Buffer.from(JSON.stringify(parsed), "utf8"))).toBe(true);
    for (let i = 0; i < 3; i++) expect((await read()).equals(computed)).toBe(true);
    await rateOne(4);
    const after = await read();
    expect(after.equals(computed)).toBe(false);
    const fresh = EvaluationResults.parse(JSON.parse(after.toString("utf8")));
    expect(fresh.ratingCount).toBe(parsed.ratingCount + 1);
    expect(fresh.dimensions[0]).toMatchObject({ kind: "sse", mean: 3 });
    expect(after.equals(Buffer.from(JSON.stringify(fresh), "utf8"))).toBe(true);
    expect((await read()).equals(after)).toBe(true);
  });
});

describe("conditional reads", () => {
  it("tag results and agreement with an ETag; a matching If-None-Match gets 304 until a rating changes them", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      extra: { allowMultipleRatings: true },
    });
    const rateOne = async (v: number) =>
      expectStatus(
        await rate(evaluation.id, { comparisonId: comparisonIds[0], dimensionRatings: { overall: v } }),
        201,
      );
    await rateOne(3);
    await rateOne(5);
    for (const path of ["results", "agreement"]) {
      const url = `${server.api}/evaluations/${evaluation.id}/${path}`;
      const get = (headers: Record<string, string> = {}, k = key) =>
        fetch(url, { headers: { ...bearer(k), ...headers } });
      const first = await get();
      expect(first.status).toBe(200);
      const body = Buffer.from(await first.arrayBuffer());
      const etag = first.headers.get("etag");
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect(first.headers.get("cache-control")).toBe("private, no-cache");
      // The same bytes, the same tag.
      const again = await get();
      expect(again.headers.get("etag")).toBe(etag);
      expect(Buffer.from(await again.arrayBuffer()).equals(body)).toBe(true);

      for (const header of [etag!, `W/${etag}`, `"other", ${etag}`, "*"]) {
        const res = await get({ "If-None-Match": header });
        expect(res.status, header).toBe(304);
        expect(await res.text()).toBe("");
        expect(res.headers.get("etag")).toBe(etag);
        expect(res.headers.get("cache-control")).toBe("private, no-cache");
        expect(res.headers.get("x-request-id")).toBeTruthy();
        expect(res.headers.get("x-ratelimit-limit")).toBeTruthy();
      }
      const stale = await get({ "If-None-Match": '"not-this-one"' });
      expect(stale.status).toBe(200);
      expect(Buffer.from(await stale.arrayBuffer()).equals(body)).toBe(true);

      // A tag is no key: a caller without access is refused as without it.
      const stranger = await signUp(server, `results-etag-${path}`);
      const strangerKey = await mintApiKey(server, stranger, ["evaluations:read"]);
      const refused = await get({ "If-None-Match": etag! }, strangerKey);
      expect(refused.status).toBe(404);
      expect((await refused.json()).error.type).toBe("not_found_error");
    }

    // A new rating changes both bodies: the kept tags no longer match.
    const before = await Promise.all(
      ["results", "agreement"].map(async (path) => {
        const res = await fetch(`${server.api}/evaluations/${evaluation.id}/${path}`, {
          headers: bearer(key),
        });
        await res.arrayBuffer();
        return { path, etag: res.headers.get("etag")! };
      }),
    );
    await rateOne(7);
    for (const { path, etag } of before) {
      const res = await fetch(`${server.api}/evaluations/${evaluation.id}/${path}`, {
        headers: { ...bearer(key), "If-None-Match": etag },
      });
      expect(res.status, path).toBe(200);
      expect(res.headers.get("etag")).not.toBe(etag);
      await res.arrayBuffer();
    }
    const fresh = await results(evaluation.id);
    expect(fresh.ratingCount).toBe(3);
  });
});

/** Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", example C: four observers, twelve units. */
const EXAMPLE_C: (number | null)[][] = [
  [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
  [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
];

describe("agreement", () => {
  it("reproduces Krippendorff's published example through public raters on the share link", async () => {
    const template = await call(Template, `${server.api}/templates`, {
      method: "POST",
      headers: bearer(key),
      body: { teamId: user.teamId, name: "Five point", scaleType: "FIVE_POINT", scaleMin: 1, scaleMax: 5 },
    });
    expectStatus(template, 201);
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      count: 12,
      extra: { shareAccess: "ANYONE_WITH_LINK", selectedDimensionIds: [template.body.id] },
    });
    for (const observer of EXAMPLE_C) {
      const started = await startPublicRater(server, evaluation.shareToken);
      expect(started.status).toBe(201);
      for (const [unit, value] of observer.entries()) {
        if (value === null) continue;
        const res = await shareRate(server, evaluation.shareToken, started.cookie, {
          comparisonId: comparisonIds[unit],
          dimensionRatings: { [template.body.id]: value },
        });
        expect(res.status).toBe(201);
      }
    }
    const expected = { nominal: 0.743, ordinal: 0.815, interval: 0.849, ratio: 0.797 } as const;
    for (const [metric, alpha] of Object.entries(expected)) {
      const res = await call(
        EvaluationAgreement,
        `${server.api}/evaluations/${evaluation.id}/agreement?metric=${metric}`,
        {
          headers: bearer(key),
        },
      );
      expectStatus(res, 200);
      const a = res.body;
      expect(a.overall.metric).toBe(metric);
      expect(a.overall.alpha).toBeCloseTo(alpha, 3);
      expect(a.overall).toMatchObject({ raters: 4, units: 11, values: 40 });
      expect(a.dimensions[0]!.alpha).toBeCloseTo(alpha, 3);
      expect(a.groups.humans.overall.alpha).toBeCloseTo(alpha, 3);
      expect(a.groups.autousers.overall).toMatchObject({
        alpha: null,
        undefinedReason: "no_pairable_values",
      });
      expect(a.overall.ci95!.lower).toBeLessThanOrEqual(a.overall.alpha!);
      expect(a.overall.ci95!.upper).toBeGreaterThanOrEqual(a.overall.alpha! - 1e-9);
    }
    // The default for an SSE scale is ordinal, and the seeded interval is the same on every read.
    const byDefault = bodyOf(
      await call(EvaluationAgreement, `${server.api}/evaluations/${evaluation.id}/agreement`, {
        headers: bearer(key),
      }),
    );
    expect(byDefault.overall.metric).toBe("ordinal");
    const again = await call(EvaluationAgreement, `${server.api}/evaluations/${evaluation.id}/agreement`, {
      headers: bearer(key),
    });
    expect(bodyOf(again).overall.ci95).toEqual(byDefault.overall.ci95);
    const r = await results(evaluation.id);
    expect(r.agreement.alpha).toBeCloseTo(0.815, 3);
    expect(r.perRater).toHaveLength(4);

    expectError(
      await call(EvaluationAgreement, `${server.api}/evaluations/${evaluation.id}/agreement?metric=cosine`, {
        headers: bearer(key),
      }),
      400,
      {
        type: "invalid_request_error",
        param: "metric",
      },
    );
  });

  it("says why alpha is undefined when every value is the same", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      extra: { allowMultipleRatings: true },
    });
    for (const c of comparisonIds) {
      for (let i = 0; i < 2; i++)
        await rate(evaluation.id, { comparisonId: c, dimensionRatings: { overall: 4 } });
    }
    const res = await call(EvaluationAgreement, `${server.api}/evaluations/${evaluation.id}/agreement`, {
      headers: bearer(key),
    });
    expect(bodyOf(res).overall).toMatchObject({ alpha: null, undefinedReason: "no_variation", ci95: null });
  });
});

describe("export", () => {
  it("answers one CSV row per rating and template, and the ratings as JSON", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      type: "SxS",
      extra: { selectedDimensionIds: ["overall", "usability"], allowMultipleRatings: true },
    });
    await rate(evaluation.id, {
      comparisonId: comparisonIds[0],
      dimensionRatings: { overall: -1, usability: 2 },
      justification: '=HYPERLINK("x"), "quoted"',
    });
    await rate(evaluation.id, { comparisonId: comparisonIds[1], skipReason: "x;=cmd|' /C calc'!A0" });

    const res = await fetch(`${server.api}/evaluations/${evaluation.id}/export?format=csv`, {
      headers: bearer(key),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toContain(`${evaluation.id}-ratings.csv`);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const lines = (await res.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "rating_id,evaluation_id,comparison_id,comparison_name,rater_type,rater_id,template_id,template_version,value,skip_reason,time_spent_seconds,justification,created_at",
    );
    expect(lines).toHaveLength(4);
    expect(lines.filter((l) => l.includes(',"overall",1,-1,'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes(',"usability",1,2,'))).toHaveLength(1);
    expect(lines.some((l) => l.includes(`"'=HYPERLINK(""x""), ""quoted"""`))).toBe(true);
    // Quoted whole, so a spreadsheet splitting on `;` still reads one cell and never a formula.
    expect(lines.filter((l) => l.includes(`,,,,"x;=cmd|' /C calc'!A0",`))).toHaveLength(1);
    expect(lines.slice(1).every((l) => l.startsWith('"rat_'))).toBe(true);

    const json = await call(RatingExport, `${server.api}/evaluations/${evaluation.id}/export?format=json`, {
      headers: bearer(key),
    });
    expectStatus(json, 200);
    expect(json.body).toMatchObject({ object: "evaluation_export", evaluationId: evaluation.id });
    expect(json.body.ratings).toHaveLength(2);
    // Export hands out every rating, so it needs ratings:read as well as evaluations:read.
    const evaluationsOnly = await mintApiKey(server, user, ["evaluations:read"]);
    const refused = await call(
      RatingExport,
      `${server.api}/evaluations/${evaluation.id}/export?format=json`,
      {
        headers: bearer(evaluationsOnly),
      },
    );
    expectError(refused, 403, { type: "authorization_error", code: "missing_required_scope" });
    expect(refused.body.error.message).toContain("ratings:read");
    const both = await mintApiKey(server, user, ["evaluations:read", "ratings:read"]);
    expect(
      (
        await call(RatingExport, `${server.api}/evaluations/${evaluation.id}/export?format=json`, {
          headers: bearer(both),
        })
      ).status,
    ).toBe(200);
    expectError(
      await call(RatingExport, `${server.api}/evaluations/${evaluation.id}/export?format=xml`, {
        headers: bearer(key),
      }),
      400,
      {
        type: "invalid_request_error",
        param: "format",
      },
    );
  });
});
