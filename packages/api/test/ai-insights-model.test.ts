import { type ProviderServer, startOpenAIServer } from "@rubricon/agents/testing";
import { AiInsights, Rating } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backgroundLoops } from "../src/background/loops";
import { expectStatus } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, signUp } from "./helpers/clients";
import { runningEvaluation } from "./helpers/ratings";
import { startTestServer, type TestServer } from "./helpers/server";

let provider: ProviderServer;
let server: TestServer;
let key: string;

beforeAll(async () => {
  provider = await startOpenAIServer({ apiKey: "sk-platform" });
  server = await startTestServer({
    env: {
      AUTOUSER_PROVIDER: "openai",
      AUTOUSER_MODEL: "gpt-insights-test",
      AUTOUSER_API_KEY: "sk-platform",
      AUTOUSER_BASE_URL: provider.baseUrl,
    },
  });
  const user = await signUp(server, "insights-model");
  key = await mintApiKey(server, user, ["evaluations:*", "ratings:*"]);
});
afterAll(async () => {
  await server?.close();
  await provider?.close();
});

describe("AI insights written by a model", () => {
  it("keeps the model's summary and only the quotes a rating backs", async () => {
    const headers = bearer(key);
    const { evaluation, comparisonIds } = await runningEvaluation(server, headers, { count: 1 });
    const rating = await call(Rating, `${server.api}/evaluations/${evaluation.id}/ratings`, {
      method: "POST",
      headers,
      body: {
        comparisonId: comparisonIds[0],
        dimensionRatings: { overall: 6 },
        justification: "The price is clear. Paying was quick.",
      },
    });
    expectStatus(rating, 201);
    const ratingId = rating.body.id;
    provider.enqueue({
      type: "json",
      value: {
        summary: "Raters found the price clear.",
        themes: [
          {
            label: "Price clarity",
            mentions: 1,
            quotes: [
              { ratingId, text: "The price is clear." },
              { ratingId, text: "Words no rater wrote." },
              { ratingId: "rat_invented", text: "The price is clear." },
            ],
          },
        ],
        comparisons: [
          {
            comparisonId: comparisonIds[0],
            name: "Design 0",
            ratingCount: 99,
            strengths: [{ text: "Quick payment", quotes: [{ ratingId, text: "Paying was quick." }] }],
            problems: [],
          },
          { comparisonId: "cmp_invented", name: null, ratingCount: 1, strengths: [], problems: [] },
        ],
      },
    });
    const url = `${server.api}/evaluations/${evaluation.id}/ai-insights`;
    expectStatus(await call(AiInsights, url, { method: "POST", headers }), 202);
    await backgroundLoops(server.app.services)
      .find((l) => l.name === "insights")!
      .run();
    const ready = bodyOf(await call(AiInsights, url, { headers }));
    expect(ready).toMatchObject({
      status: "ready",
      generator: "model",
      model: "gpt-insights-test",
      ratingCount: 1,
    });
    expect(ready.summary).toBe("Raters found the price clear.");
    expect(ready.themes[0]!.quotes).toEqual([{ ratingId, text: "The price is clear." }]);
    expect(ready.comparisons).toHaveLength(1);
    expect(ready.comparisons[0]).toMatchObject({ comparisonId: comparisonIds[0], ratingCount: 1 });
    expect(ready.comparisons[0]!.strengths[0]!.quotes).toEqual([{ ratingId, text: "Paying was quick." }]);
    expect(provider.requests.at(-1)!.apiKey).toBe("sk-platform");
    expect(JSON.stringify(provider.requests.at(-1)!.body)).toContain("Paying was quick.");
  });
});
