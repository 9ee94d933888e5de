import type { FixtureSite } from "@rubricon/agents/testing";
import { type ProviderServer, startFixtureSite, startOpenAIServer } from "@rubricon/agents/testing";
import { AutouserRun, AutouserRunTurns, NotificationList, RatingList, Usage } from "@rubricon/contracts";
import { events } from "@rubricon/db";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { expectStatus } from "./helpers/assertions";
import {
  createEvaluationFor,
  insertAutouser,
  openRunStream,
  readUntilEnd,
  runAutousers,
  startAutouserServer,
  startRunLoop,
} from "./helpers/autousers";
import { bearer, bodyOf, call, mintApiKey, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import type { TestServer } from "./helpers/server";

/** Runs with the platform's model: a loopback OpenAI server plans the agent's steps and rates. */
let server: TestServer;
let site: FixtureSite;
let provider: ProviderServer;
let owner: TestUser;
let key: string;
let autouserId: string;

beforeAll(async () => {
  [site, provider] = await Promise.all([startFixtureSite(), startOpenAIServer()]);
  server = await startAutouserServer({
    env: {
      AUTOUSER_PROVIDER: "openai",
      AUTOUSER_MODEL: "gpt-4o-mini",
      AUTOUSER_API_KEY: "sk-platform-test",
      AUTOUSER_BASE_URL: provider.baseUrl,
    },
  });
  owner = await signUp(server, "llm-runs");
  key = await mintApiKey(server, owner, ["evaluations:*", "autousers:*", "ratings:read"]);
  autouserId = await insertAutouser(server, owner.teamId);
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.close(), site?.close(), provider?.close()]);
});

const get = <S extends z.ZodType>(schema: S, path: string) =>
  call(schema, `${server.api}${path}`, { headers: bearer(key) });

async function runOnce(designUrl: string) {
  const evaluation = await createEvaluationFor(server, key, {
    name: "Shop flow",
    type: "SSE",
    scenario: "Find the details of the tea and go on to the checkout.",
    designUrls: [{ url: designUrl }],
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
  return { evaluationId: evaluation.id, runId };
}

describe("an autouser with the LLM judge", () => {
  it("acts on the page as the model plans, then rates, counting tokens and cost", async () => {
    provider.enqueue(
      {
        type: "json",
        value: { action: "click", name: "Show details" },
        usage: { inputTokens: 100, outputTokens: 10 },
      },
      {
        type: "json",
        value: { action: "click", name: "Continue to checkout" },
        usage: { inputTokens: 100, outputTokens: 10 },
      },
      {
        type: "json",
        value: { action: "done", reason: "seen enough" },
        usage: { inputTokens: 100, outputTokens: 10 },
      },
      {
        type: "json",
        value: {
          ratings: { overall: 6 },
          justification: "The details open in place and checkout is one link away.",
        },
        usage: { inputTokens: 1000, outputTokens: 50 },
      },
    );
    const { evaluationId, runId } = await runOnce(site.urls.flowStart);
    const run = bodyOf(await get(AutouserRun, `/evaluations/${evaluationId}/autouser-runs/${runId}`));
    expect(run).toMatchObject({
      status: "completed",
      ratingsCreated: 1,
      credentialSource: "platform",
      model: "openai/gpt-4o-mini",
      inputTokens: 1300,
      outputTokens: 80,
    });
    expect(run.estimatedCostUsd).toBeGreaterThan(0);
    const turns = bodyOf(
      await get(AutouserRunTurns, `/evaluations/${evaluationId}/autouser-runs/${runId}/turns`),
    );
    expect(turns.data.map((t) => t.action.type)).toEqual(["visit", "click", "click", "done", "rate"]);
    expect(turns.data[2]!.url).toBe(site.urls.flowCheckout);
    expect(turns.data.map((t) => t.inputTokens)).toEqual([0, 100, 100, 100, 1000]);
    const ratings = bodyOf(
      await call(RatingList, `${server.api}/evaluations/${evaluationId}/ratings`, { headers: bearer(key) }),
    );
    expect(ratings.data.map((r) => r.dimensionRatings)).toEqual([{ overall: 6 }]);
    expect(ratings.data[0]!.justification).toContain("checkout is one link away");
    // The platform key went to the provider; the scenario reached the planner.
    expect(provider.requests[0]!.apiKey).toBe("sk-platform-test");
    expect(JSON.stringify(provider.requests[0]!.body)).toContain("Find the details of the tea");
  }, 90_000);

  it("fails the run when the provider answers 500s, emits the event and spends no quota", async () => {
    const before = bodyOf(await call(Usage, `${server.api}/usage`, { headers: bearer(key) })).used
      .autouser_ratings_mo;
    provider.setFallback({ type: "server-error" });
    try {
      const { evaluationId, runId } = await runOnce(site.urls.clean);
      const run = bodyOf(await get(AutouserRun, `/evaluations/${evaluationId}/autouser-runs/${runId}`));
      expect(run).toMatchObject({ status: "failed", ratingsCreated: 0, credentialSource: "platform" });
      expect(run.error).toMatch(/provider/i);
      expect(run.error).not.toContain("sk-platform-test");
      const [failed] = await server.database.db
        .select()
        .from(events)
        .where(and(eq(events.type, "autouser_run.failed"), eq(events.objectId, runId)));
      expect(failed!.object).toMatchObject({ id: runId, status: "failed", error: run.error });
      // The evaluation's creator is told, with the run to open.
      const bell = bodyOf(
        await call(NotificationList, `${server.api}/notifications`, {
          headers: sessionHeaders(server, owner),
        }),
      );
      const told = bell.data.find((n) => n.kind === "autouser_run.failed" && n.data.runId === runId);
      expect(told).toMatchObject({ read: false, body: run.error, data: { evaluationId } });
      expect(told!.link).toContain(`/evaluations/${evaluationId}`);
    } finally {
      provider.setFallback(null);
    }
    const after = bodyOf(await call(Usage, `${server.api}/usage`, { headers: bearer(key) })).used
      .autouser_ratings_mo;
    expect(after).toBe(before);
  }, 90_000);
});
