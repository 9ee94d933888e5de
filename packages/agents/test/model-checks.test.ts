import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capabilitiesOf, costOf, type ModelConfig, priceOf, probeModel, testModel } from "../src";
import { type ProviderServer, startProviderServer } from "../src/testing";

describe("testModel and probeModel", () => {
  let server: ProviderServer;
  const config = (over: Partial<ModelConfig> = {}): ModelConfig => ({
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    apiKey: "sk-ant-good-0001",
    baseUrl: server.baseUrl,
    source: "byok",
    ...over,
  });

  beforeAll(async () => {
    server = await startProviderServer("anthropic", { apiKey: "sk-ant-good-0001" });
  });
  afterAll(() => server.close());

  it("answers ok with usage for a working key", async () => {
    server.enqueue({ type: "text", text: "OK", usage: { inputTokens: 9, outputTokens: 1 } });
    const check = await testModel(config());
    expect(check).toMatchObject({ ok: true, usage: { inputTokens: 9, outputTokens: 1 } });
  });

  it("names what is wrong: key, rate, model, address, time", async () => {
    expect(await testModel(config({ apiKey: "sk-ant-bad-0002" }))).toMatchObject({
      ok: false,
      error: { code: "provider_auth", status: 401 },
    });
    server.enqueue({ type: "rate-limited", retryAfterSeconds: 30 });
    expect(await testModel(config())).toMatchObject({
      ok: false,
      error: { code: "provider_rate_limited", retryAfterSeconds: 30 },
    });
    expect(await testModel(config({ baseUrl: `${server.baseUrl}/nowhere` }))).toMatchObject({
      ok: false,
      error: { code: "model_not_found", status: 404 },
    });
    expect(await testModel(config({ baseUrl: "http://127.0.0.1:9/v1" }))).toMatchObject({
      ok: false,
      error: { code: "provider_unreachable" },
    });
    server.enqueue({ type: "hang" });
    expect(await testModel(config(), { timeoutMs: 200 })).toMatchObject({
      ok: false,
      error: { code: "timeout" },
    });
  });

  it("probes a known model with one structured call and the table", async () => {
    const before = server.requests.length;
    server.enqueue({ type: "json", value: { score: 5, reason: "clear" } });
    expect(await probeModel(config())).toEqual({
      known: true,
      imageInput: true,
      structuredOutput: true,
      basis: { imageInput: "table", structuredOutput: "call" },
      error: null,
    });
    expect(server.requests.length - before).toBe(1);
  });

  it("probes an unknown local model with a real image call", async () => {
    const local = await startProviderServer("openai-compatible");
    try {
      local.enqueue({ type: "json", value: { score: 4, reason: "ok" } }, { type: "text", text: "Red" });
      const probe = await probeModel({
        provider: "openai-compatible",
        model: "my-finetune",
        apiKey: null,
        baseUrl: local.baseUrl,
        source: "byok",
      });
      expect(probe).toMatchObject({
        known: false,
        imageInput: true,
        structuredOutput: true,
        basis: { imageInput: "call" },
      });
      expect(local.requests.at(-1)?.images).toBe(1);

      local.enqueue({ type: "text", text: "I cannot do JSON" }, { type: "server-error" });
      const broken = await probeModel({
        provider: "openai-compatible",
        model: "my-finetune",
        apiKey: null,
        baseUrl: local.baseUrl,
        source: "byok",
      });
      expect(broken).toMatchObject({
        structuredOutput: false,
        error: { code: "provider_error", status: 500 },
      });
    } finally {
      await local.close();
    }
  });

  it("reports no findings when the key is refused", async () => {
    const probe = await probeModel(config({ apiKey: "sk-ant-bad-0003" }));
    expect(probe.error?.code).toBe("provider_auth");
  });
});

describe("price and capability tables", () => {
  it("match dated snapshots to their family by the longest prefix", () => {
    expect(priceOf("openai", "gpt-4o-mini-2024-07-18")).toEqual({
      inputPerMillion: 0.15,
      outputPerMillion: 0.6,
    });
    expect(priceOf("openai", "gpt-4.1-mini")).toEqual({ inputPerMillion: 0.4, outputPerMillion: 1.6 });
    expect(priceOf("google", "models/gemini-2.5-flash")).toEqual({
      inputPerMillion: 0.3,
      outputPerMillion: 2.5,
    });
    expect(priceOf("openai", "unknown-model")).toBeNull();
    expect(
      costOf({ inputTokens: 1_000_000, outputTokens: 1_000_000 }, "anthropic", "claude-sonnet-4-5-20250929"),
    ).toBe(18);
    expect(capabilitiesOf("openai", "o3-mini")).toMatchObject({ imageInput: false, known: true });
    expect(capabilitiesOf("openai-compatible", "llava:13b")).toMatchObject({ imageInput: true, known: true });
    expect(capabilitiesOf("openai-compatible", "mystery")).toMatchObject({ imageInput: false, known: false });
  });
});
