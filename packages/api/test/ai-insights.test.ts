import { AiInsights, Rating } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { backgroundLoops } from "../src/background/loops";
import { expectError, expectStatus } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, signUp, type TestUser } from "./helpers/clients";
import { runningEvaluation } from "./helpers/ratings";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let user: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ sources: "it runs the insights loop on the app's own services" });
  user = await signUp(server, "insights");
  key = await mintApiKey(server, user, ["evaluations:*", "ratings:*"]);
});
afterAll(() => server?.close());

/** One pass of the worker's insights loop, as the background process runs it. */
async function runWorker(): Promise<void> {
  const loop = backgroundLoops(server.app.services).find((l) => l.name === "insights")!;
  await loop.run();
}

const JUSTIFICATIONS: [number, number, string][] = [
  [0, 7, "The total price is clear and the pay button is obvious."],
  [0, 6, "Clear price breakdown. Felt quick."],
  [0, 2, "The shipping price appears only at the end."],
  [1, 1, "Confusing form with too many fields; the price is hidden."],
  [1, 5, "Nice layout but the price could be clearer."],
];

describe("AI insights without a model (extractive)", () => {
  it("summarises justifications with quotes that name their ratings, queued by POST and written by the worker", async () => {
    const headers = bearer(key);
    const { evaluation, comparisonIds } = await runningEvaluation(server, headers, {
      extra: { allowMultipleRatings: true },
    });
    const url = `${server.api}/evaluations/${evaluation.id}/ai-insights`;
    const before = bodyOf(await call(AiInsights, url, { headers }));
    expect(before).toMatchObject({ status: "not_started", summary: null, generator: null, stale: false });

    const ratingIds: string[] = [];
    for (const [cmp, score, justification] of JUSTIFICATIONS) {
      const res = await call(Rating, `${server.api}/evaluations/${evaluation.id}/ratings`, {
        method: "POST",
        headers,
        body: { comparisonId: comparisonIds[cmp], dimensionRatings: { overall: score }, justification },
      });
      expectStatus(res, 201);
      ratingIds.push(res.body.id);
    }

    const queued = await call(AiInsights, url, { method: "POST", headers });
    expectStatus(queued, 202);
    expect(queued.body.status).toBe("queued");
    await runWorker();

    const ready = bodyOf(await call(AiInsights, url, { headers }));
    expect(ready).toMatchObject({
      status: "ready",
      generator: "extractive",
      model: null,
      stale: false,
      ratingCount: 5,
    });
    expect(ready.summary).toContain("no AI model is configured");
    expect(ready.themes[0]).toMatchObject({ label: "price", mentions: 5 });
    const [first, second] = ready.comparisons;
    expect(first!.comparisonId).toBe(comparisonIds[0]);
    expect(first!.strengths.map((p) => p.quotes[0]!.ratingId)).toEqual([ratingIds[0], ratingIds[1]]);
    expect(first!.problems.map((p) => p.quotes[0]!.ratingId)).toEqual([ratingIds[2]]);
    expect(second!.problems[0]!.quotes[0]).toEqual({
      ratingId: ratingIds[3],
      text: "Confusing form with too many fields; the price is hidden.",
    });
    for (const theme of ready.themes) for (const q of theme.quotes) expect(ratingIds).toContain(q.ratingId);

    // Cached by the ratings: asking again changes nothing until a rating does.
    const again = await call(AiInsights, url, { method: "POST", headers });
    expectStatus(again, 202);
    expect(again.body).toMatchObject({ status: "ready", generatedAt: ready.generatedAt });

    const more = await call(Rating, `${server.api}/evaluations/${evaluation.id}/ratings`, {
      method: "POST",
      headers,
      body: {
        comparisonId: comparisonIds[1],
        dimensionRatings: { overall: 7 },
        justification: "Fast and calm.",
      },
    });
    expectStatus(more, 201);
    expect(bodyOf(await call(AiInsights, url, { headers })).stale).toBe(true);
    expect(bodyOf(await call(AiInsights, url, { method: "POST", headers })).status).toBe("queued");
    await runWorker();
    const fresh = bodyOf(await call(AiInsights, url, { headers }));
    expect(fresh).toMatchObject({ status: "ready", stale: false, ratingCount: 6 });
    expect(fresh.comparisons[1]!.strengths.map((p) => p.quotes[0]!.ratingId)).toContain(more.body.id);
  });

  it("is another team's secret", async () => {
    const { evaluation } = await runningEvaluation(server, bearer(key));
    const other = await signUp(server, "insights-other");
    const otherKey = await mintApiKey(server, other, ["evaluations:*"]);
    const url = `${server.api}/evaluations/${evaluation.id}/ai-insights`;
    expectError(await call(z.never(), url, { headers: bearer(otherKey) }), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
    expectError(await call(z.never(), url, { method: "POST", headers: bearer(otherKey) }), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
  });
});
