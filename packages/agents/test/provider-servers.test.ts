import { APICallError, generateText, Output, streamText, tool } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { languageModelFor, type ModelConfig, type ModelProvider } from "../src";
import { type ProviderServer, startProviderServer } from "../src/testing";

const PIXEL = new Uint8Array(
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
    "base64",
  ),
);

const CASES: {
  provider: ModelProvider;
  model: string;
  keyHeader: (server: ProviderServer) => string | null;
}[] = [
  {
    provider: "openai",
    model: "gpt-4.1-mini",
    keyHeader: (s) => s.requests.at(-1)?.headers.authorization ?? null,
  },
  {
    provider: "openai-compatible",
    model: "llama3.2-vision",
    keyHeader: (s) => s.requests.at(-1)?.headers.authorization ?? null,
  },
  {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    keyHeader: (s) => s.requests.at(-1)?.headers["x-api-key"] ?? null,
  },
  {
    provider: "google",
    model: "gemini-2.5-flash",
    keyHeader: (s) => s.requests.at(-1)?.headers["x-goog-api-key"] ?? null,
  },
];

const EXPECTED_KEY: Record<ModelProvider, string> = {
  openai: "Bearer sk-loopback-1234",
  "openai-compatible": "Bearer sk-loopback-1234",
  anthropic: "sk-loopback-1234",
  google: "sk-loopback-1234",
};

describe.each(CASES)("loopback $provider server", ({ provider, model, keyHeader }) => {
  let server: ProviderServer;
  let config: ModelConfig;

  beforeAll(async () => {
    server = await startProviderServer(provider, { apiKey: "sk-loopback-1234" });
    config = { provider, model, apiKey: "sk-loopback-1234", baseUrl: server.baseUrl, source: "byok" };
  });
  afterAll(() => server.close());

  it("answers text with usage, and receives the key and the image as the provider expects", async () => {
    server.enqueue({
      type: "text",
      text: "Hello from the loopback",
      usage: { inputTokens: 11, outputTokens: 5 },
    });
    const result = await generateText({
      model: languageModelFor(config),
      maxRetries: 0,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Describe this page" },
            { type: "image", image: PIXEL, mediaType: "image/png" },
          ],
        },
      ],
    });
    expect(result.text).toBe("Hello from the loopback");
    expect(result.usage.inputTokens).toBe(11);
    expect(result.usage.outputTokens).toBe(5);
    const request = server.requests.at(-1);
    expect(request?.model).toBe(model);
    expect(request?.stream).toBe(false);
    expect(request?.images).toBe(1);
    expect(keyHeader(server)).toBe(EXPECTED_KEY[provider]);
    if (provider === "openai") expect(request?.url).toBe("/v1/responses");
    if (provider === "openai-compatible") expect(request?.url).toBe("/v1/chat/completions");
    if (provider === "anthropic") expect(request?.url).toBe("/v1/messages");
    if (provider === "google") expect(request?.url).toBe(`/v1beta/models/${model}:generateContent`);
  });

  it("streams text in several events with usage", async () => {
    server.enqueue({
      type: "text",
      text: "A streamed reply arrives in pieces",
      usage: { inputTokens: 7, outputTokens: 9 },
    });
    const result = streamText({ model: languageModelFor(config), prompt: "hi", maxRetries: 0 });
    const pieces: string[] = [];
    for await (const piece of result.textStream) pieces.push(piece);
    expect(pieces.join("")).toBe("A streamed reply arrives in pieces");
    expect(pieces.length).toBeGreaterThan(1);
    expect(server.requests.at(-1)?.stream).toBe(true);
    if (provider === "google")
      expect(server.requests.at(-1)?.url).toContain(":streamGenerateContent?alt=sse");
    if (provider !== "openai-compatible") {
      const usage = await result.usage;
      expect(usage.inputTokens).toBe(7);
      expect(usage.outputTokens).toBe(9);
    }
  });

  it("answers structured output", async () => {
    server.enqueue({ type: "json", value: { score: 4, reason: "clear" } });
    const result = await generateText({
      model: languageModelFor(config),
      maxRetries: 0,
      prompt: "rate it",
      output: Output.object({ schema: z.object({ score: z.number().int(), reason: z.string() }) }),
    });
    expect(result.output).toEqual({ score: 4, reason: "clear" });
  });

  it.each([false, true])("answers tool calls (streamed: %s)", async (streamed) => {
    server.enqueue({ type: "tool-calls", calls: [{ name: "addTemplate", args: { name: "Clarity" } }] });
    const tools = {
      addTemplate: tool({ description: "Adds a template", inputSchema: z.object({ name: z.string() }) }),
    };
    if (streamed) {
      const result = streamText({ model: languageModelFor(config), prompt: "add one", tools, maxRetries: 0 });
      const calls = await result.toolCalls;
      expect(calls.map((call) => [call.toolName, call.input])).toEqual([
        ["addTemplate", { name: "Clarity" }],
      ]);
    } else {
      const result = await generateText({
        model: languageModelFor(config),
        prompt: "add one",
        tools,
        maxRetries: 0,
      });
      expect(result.toolCalls.map((call) => [call.toolName, call.input])).toEqual([
        ["addTemplate", { name: "Clarity" }],
      ]);
    }
  });

  it("refuses a wrong key with the provider's own error", async () => {
    const error = await generateText({
      model: languageModelFor({ ...config, apiKey: "sk-wrong-9999" }),
      prompt: "hi",
      maxRetries: 0,
    }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    const call = error as APICallError;
    expect(call.statusCode).toBe(provider === "google" ? 400 : 401);
    expect(call.responseBody).toMatch(provider === "google" ? /API_KEY_INVALID/ : /invalid/i);
  });

  it("answers 429 with its retry hint, 500, and malformed bodies", async () => {
    server.enqueue({ type: "rate-limited", retryAfterSeconds: 17 });
    const limited = (await generateText({
      model: languageModelFor(config),
      prompt: "hi",
      maxRetries: 0,
    }).catch((e: unknown) => e)) as APICallError;
    expect(limited.statusCode).toBe(429);
    if (provider === "google") expect(limited.responseBody).toContain('"retryDelay":"17s"');
    else expect(limited.responseHeaders?.["retry-after"]).toBe("17");

    server.enqueue({ type: "server-error" });
    const failed = (await generateText({
      model: languageModelFor(config),
      prompt: "hi",
      maxRetries: 0,
    }).catch((e: unknown) => e)) as APICallError;
    expect(failed.statusCode).toBe(500);

    server.enqueue({ type: "malformed" });
    await expect(
      generateText({ model: languageModelFor(config), prompt: "hi", maxRetries: 0 }),
    ).rejects.toThrow();
    expect(server.pending()).toBe(0);
  });

  it("hangs until the client gives up", async () => {
    server.enqueue({ type: "hang" });
    const started = Date.now();
    await expect(
      generateText({
        model: languageModelFor(config),
        prompt: "hi",
        maxRetries: 0,
        abortSignal: AbortSignal.timeout(200),
      }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
