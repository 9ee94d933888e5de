import { type AgentBrowser, createLlmJudge, launchAgentBrowser, type ModelConfig } from "@rubricon/agents";
import { judgeTemplate, type ProviderServer, startOpenAIServer } from "@rubricon/agents/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SystemPersona } from "../judge/personas";
import { clearPairs, peopleFigures } from "./figures";
import { benchModelConfig, foldFitFor, type PeoplePage, ratePeople, spread } from "./people-bench";

/** A 1×1 PNG: the picture itself does not matter to the model's plumbing. */
const PNG = new Uint8Array(
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
    "base64",
  ),
);

const POWER_USER: SystemPersona = {
  id: "auto_power_user",
  persona: {
    name: "Power user",
    role: "power user",
    description: "",
    goals: [],
    traits: [],
    expertise: "expert",
    accessibilityNeeds: [],
    device: { kind: "desktop", viewport: { width: 1024, height: 768 }, network: "fast" },
    systemPrompt: null,
  },
  template: judgeTemplate("overall", {
    id: "overall",
    name: "Overall",
    question: "How good is this page overall?",
  }),
};

describe("pnpm bench people", () => {
  let server: ProviderServer;
  let browser: AgentBrowser;
  beforeAll(async () => {
    server = await startOpenAIServer({ apiKey: "sk-bench" });
    browser = await launchAgentBrowser();
  });
  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  it("rates each page with the model judge through the browser, and reports a page it could not rate", async () => {
    server.enqueue(
      { type: "json", value: { ratings: { overall: 6 }, justification: "Calm and clear." } },
      { type: "json", value: { ratings: { overall: 2 }, justification: "Cluttered." } },
    );
    const config = benchModelConfig({
      BENCH_MODEL: "openai/gpt-4o-mini",
      BENCH_MODEL_KEY: "sk-bench",
      BENCH_MODEL_BASE_URL: server.baseUrl,
    });
    const pages: PeoplePage[] = [
      { id: "english/1", rating: 6.5, png: () => PNG },
      { id: "english/2", rating: 2.5, png: () => PNG },
    ];
    const judge = createLlmJudge(config as ModelConfig);
    const { scores, failures } = await ratePeople({
      pages,
      personas: [POWER_USER],
      browser,
      judgeFor: () => judge,
      concurrency: 1,
    });
    expect(failures).toEqual([]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests.every((r) => r.images === 1)).toBe(true);
    expect(scores.map((s) => s.score).sort()).toEqual([2, 6]);
    // The model's bad reply (no usable rating) leaves that page out with its reason; the run goes on.
    server.enqueue({ type: "json", value: { nothing: true } });
    const again = await ratePeople({
      pages: pages.slice(0, 1),
      personas: [POWER_USER],
      browser,
      judgeFor: () => judge,
      concurrency: 1,
    });
    expect(again.scores).toEqual([]);
    expect(again.failures[0]).toMatch(/^english\/1 \(power_user\): /);
  }, 120_000);

  it("needs a named model for --judge model", () => {
    expect(() => benchModelConfig({})).toThrow(/BENCH_MODEL/);
  });

  it("scores a training page with the fold model that never saw it", () => {
    const inFold = foldFitFor("english/0");
    const outside = foldFitFor("not-a-training-page");
    expect(inFold.coefficients).toHaveLength(outside.coefficients.length);
    expect(inFold.coefficients).not.toEqual(outside.coefficients);
    expect(inFold.features).toEqual(outside.features);
  });

  it("counts agreement on the pairs people clearly separate, a tie as half", () => {
    const scores = [
      { people: 7, score: 6 },
      { people: 5.5, score: 6 },
      { people: 3, score: 2 },
    ];
    // Clear pairs: (7, 3) right, (5.5, 3) right, (7, 5.5) right only if ordered: a tie → half.
    expect(clearPairs(scores)).toEqual({ pairs: 3, agreement: (1 + 1 + 0.5) / 3 });
    const figures = peopleFigures(
      scores.map((s, i) => ({ page: String(i), persona: "p", ...s })),
      [{ id: "p", sees: true }],
    );
    expect(figures.find((f) => f.name === "people.clearPairs.p")).toMatchObject({
      target: ">= 0.75",
      pass: true,
    });
    expect(spread([1, 2, 3, 4, 5, 6], 3)).toEqual([1, 3, 5]);
  });
});
