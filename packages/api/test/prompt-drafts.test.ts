import { type ProviderServer, startOpenAIServer } from "@rubricon/agents/testing";
import { AutouserPromptDraft, TemplatePromptDraft } from "@rubricon/contracts";
import { autousers, templates } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError, expectStatus } from "./helpers/assertions";
import { bearer, call, mintApiKey, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";
import { type Frame, nextEvent, readFrames } from "./helpers/sse";

let offline: TestServer;
let modelled: TestServer;
let provider: ProviderServer;
let user: TestUser;
let key: string;
let modelKey: string;

beforeAll(async () => {
  provider = await startOpenAIServer({ apiKey: "sk-platform" });
  [offline, modelled] = await Promise.all([
    startTestServer(),
    startTestServer({
      env: {
        AUTOUSER_PROVIDER: "openai",
        AUTOUSER_MODEL: "gpt-drafts-test",
        AUTOUSER_API_KEY: "sk-platform",
        AUTOUSER_BASE_URL: provider.baseUrl,
      },
    }),
  ]);
  user = await signUp(offline, "prompt-drafts");
  key = await mintApiKey(offline, user, ["autousers:*", "templates:*"]);
  modelKey = await mintApiKey(modelled, await signUp(modelled, "prompt-drafts-model"), [
    "autousers:*",
    "templates:*",
  ]);
}, 240_000);
afterAll(async () => {
  await Promise.all([offline?.close(), modelled?.close()]);
  await provider?.close();
});

async function draft(server: TestServer, path: string, token: string, body: unknown): Promise<Frame[]> {
  const controller = new AbortController();
  const response = await fetch(`${server.api}${path}/draft-from-prompt`, {
    method: "POST",
    headers: { ...bearer(token), "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const stream = readFrames(response, () => controller.abort());
  const frames: Frame[] = [];
  for (let f = await nextEvent(stream); f; f = await nextEvent(stream)) frames.push(f);
  return frames;
}

const PERSONA =
  "A retired teacher who is new to online banking and uses a screen reader on her phone over a slow 3G " +
  "connection. She is careful and anxious about mistakes. She wants to pay a bill and needs to check her balance.";
const TEMPLATE =
  "Compare two versions of a checkout page side by side on a five-point scale: which is clearer, more " +
  "trustworthy and more accessible for shoppers.";

describe("POST /autousers/draft-from-prompt without a model", () => {
  it("streams a deterministic persona draft that POST /autousers accepts, and saves nothing", async () => {
    const before = await offline.database.db
      .select()
      .from(autousers)
      .where(eq(autousers.teamId, user.teamId));
    const frames = await draft(offline, "/autousers", key, { description: PERSONA });
    expect(frames[0]).toMatchObject({
      event: "start",
      data: { kind: "autouser", generator: "rules", model: null },
    });
    expect(frames.filter((f) => f.event === "text_delta").length).toBeGreaterThan(0);
    const last = frames.at(-1)!;
    expect(last.event).toBe("draft");
    const result = AutouserPromptDraft.parse(last.data);
    expect(result.draft).toMatchObject({
      expertise: "novice",
      accessibilityNeeds: ["screen-reader"],
      device: { kind: "mobile", network: "slow-3g" },
      traits: ["careful", "anxious"],
      goals: ["Pay a bill", "Check her balance"],
      status: "draft",
    });
    // Not saved by drafting.
    const after = await offline.database.db.select().from(autousers).where(eq(autousers.teamId, user.teamId));
    expect(after).toHaveLength(before.length);
    // The same words, the same draft.
    const again = await draft(offline, "/autousers", key, { description: PERSONA });
    expect(again.at(-1)!.data).toEqual(last.data);
    // Saved only when the user saves it.
    const saved = await call(
      z.object({ id: z.string(), name: z.string() }).passthrough(),
      `${offline.api}/autousers`,
      {
        method: "POST",
        headers: bearer(key),
        body: result.draft,
      },
    );
    expectStatus(saved, 201);
    expect(saved.body.name).toBe(result.draft.name);
  });

  it("refuses bad input, a team you cannot act on and a key without the scope with their codes", async () => {
    const post = (body: unknown, token = key) =>
      call(z.never(), `${offline.api}/autousers/draft-from-prompt`, {
        method: "POST",
        headers: bearer(token),
        body,
      });
    expectError(await post({}), 400, {
      type: "invalid_request_error",
      code: "parameter_missing",
      param: "description",
    });
    expectError(await post({ description: "too short" }), 400, {
      type: "invalid_request_error",
      param: "description",
    });
    expectError(await post({ description: "x".repeat(2001) }), 400, {
      type: "invalid_request_error",
      param: "description",
    });
    expectError(await post({ description: PERSONA, teamId: "team_elsewhere" }), 403, {
      type: "authorization_error",
      code: "team_mismatch",
      param: "teamId",
    });
    const readOnly = await mintApiKey(offline, user, ["autousers:read"]);
    expectError(await post({ description: PERSONA }, readOnly), 403, {
      type: "authorization_error",
      code: "missing_required_scope",
    });
  });
});

describe("POST /templates/draft-from-prompt without a model", () => {
  it("streams a template draft that POST /templates accepts", async () => {
    const frames = await draft(offline, "/templates", key, { description: TEMPLATE });
    const result = TemplatePromptDraft.parse(frames.at(-1)!.data);
    expect(frames.at(-1)!.event).toBe("draft");
    expect(result).toMatchObject({ object: "template_draft", generator: "rules" });
    expect(result.draft).toMatchObject({ type: "MEDIA_SXS", scaleType: "FIVE_POINT", contexts: ["ui-ux"] });
    expect(result.draft.criteria?.map((c) => c.id)).toEqual(["clarity", "accessibility", "trust"]);
    const count = async () =>
      (await offline.database.db.select().from(templates).where(eq(templates.teamId, user.teamId))).length;
    const before = await count();
    const saved = await call(z.object({ id: z.string() }).passthrough(), `${offline.api}/templates`, {
      method: "POST",
      headers: bearer(key),
      body: { ...result.draft, teamId: user.teamId },
    });
    expectStatus(saved, 201);
    expect(await count()).toBe(before + 1);
  });
});

describe("drafting through the team's model (OpenAI protocol over loopback)", () => {
  it("answers the model's persona, checked against the create body", async () => {
    provider.enqueue({
      type: "json",
      value: {
        name: "Marta",
        role: "Retired teacher",
        description: "New to online banking.",
        goals: ["Pay a bill"],
        traits: ["careful"],
        expertise: "novice",
        accessibilityNeeds: ["screen-reader"],
        device: { kind: "mobile", network: "slow-3g" },
      },
    });
    const frames = await draft(modelled, "/autousers", modelKey, { description: PERSONA });
    expect(frames[0]).toMatchObject({
      event: "start",
      data: { generator: "model", model: "gpt-drafts-test" },
    });
    const result = AutouserPromptDraft.parse(frames.at(-1)!.data);
    expect(result).toMatchObject({ generator: "model", model: "gpt-drafts-test" });
    expect(result.draft).toMatchObject({ name: "Marta", expertise: "novice", device: { kind: "mobile" } });
  });

  it("ends with a model_error event when the model's draft is invalid or the provider fails", async () => {
    provider.enqueue({
      type: "json",
      value: {
        name: "",
        description: "d",
        type: "TEXT_SSE",
        scaleType: "SEVEN_POINT",
        guidelines: "",
        criteria: [],
        contexts: [],
      },
    });
    const invalid = await draft(modelled, "/templates", modelKey, { description: TEMPLATE });
    expect(invalid.at(-1)).toMatchObject({
      event: "error",
      data: { error: { type: "api_error", code: "model_error", details: { reason: "invalid_draft" } } },
    });
    expect(invalid.some((f) => f.event === "draft")).toBe(false);
    provider.enqueue({ type: "server-error" });
    const failed = await draft(modelled, "/autousers", modelKey, { description: PERSONA });
    expect(failed.at(-1)).toMatchObject({
      event: "error",
      data: { error: { code: "model_error", details: { reason: "provider_error" } } },
    });
  });
});
