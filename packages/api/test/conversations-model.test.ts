import { type ProviderServer, startOpenAIServer } from "@rubricon/agents/testing";
import { Conversation, ConversationMessage, ConversationMessageList } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, bodyOf, call, mintApiKey, signUp } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";
import { type Frame, nextEvent, readFrames } from "./helpers/sse";

let provider: ProviderServer;
let server: TestServer;
let key: string;

beforeAll(async () => {
  provider = await startOpenAIServer({ apiKey: "sk-platform", chunkDelayMs: 5 });
  server = await startTestServer({
    env: {
      AUTOUSER_PROVIDER: "openai",
      AUTOUSER_MODEL: "gpt-builder-test",
      AUTOUSER_API_KEY: "sk-platform",
      AUTOUSER_BASE_URL: provider.baseUrl,
    },
  });
  const user = await signUp(server, "builder-model");
  key = await mintApiKey(server, user, ["evaluations:*"]);
});
afterAll(async () => {
  await server?.close();
  await provider?.close();
});

async function converse(conversationId: string, text: string): Promise<Frame[]> {
  const controller = new AbortController();
  const response = await fetch(`${server.api}/conversations/${conversationId}/messages`, {
    method: "POST",
    headers: { ...bearer(key), "Content-Type": "application/json" },
    body: JSON.stringify({ role: "user", parts: [{ type: "text", text }] }),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const stream = readFrames(response, () => controller.abort());
  const frames: Frame[] = [];
  for (let f = await nextEvent(stream); f; f = await nextEvent(stream)) frames.push(f);
  return frames;
}

const newConversation = async () =>
  bodyOf(
    await call(Conversation, `${server.api}/conversations`, {
      method: "POST",
      headers: bearer(key),
      body: {},
    }),
  );

describe("the builder with a model (OpenAI protocol over loopback)", () => {
  it("streams the model's text and applies the drafts its tool calls make", async () => {
    const conversation = await newConversation();
    provider.enqueue(
      {
        type: "tool-calls",
        calls: [
          {
            name: "set_evaluation",
            args: {
              name: "Checkout: old against new",
              type: "SxS",
              comparisonPairs: [
                { currentUrl: "https://shop.example/old", variantUrl: "https://shop.example/new" },
              ],
              evaluationMethod: "both",
            },
          },
          { name: "add_template", args: { ref: "usability", templateId: "usability" } },
          {
            name: "add_autouser",
            args: { ref: "mobile", autouserId: "auto_mobile_shopper_slow_network", agentCount: 2 },
          },
        ],
      },
      {
        type: "text",
        text: "I drafted a side-by-side comparison of the two checkouts, rated for usability by mobile shoppers.",
      },
    );
    const frames = await converse(
      conversation.id,
      "Compare https://shop.example/old with https://shop.example/new on mobile",
    );
    const names = frames.map((f) => f.event);
    expect(names[0]).toBe("message_start");
    expect(names.slice(-2)).toEqual(["drafts", "message"]);
    expect(names.filter((n) => n === "text_delta").length).toBeGreaterThan(1);
    expect(frames[0]!.data).toMatchObject({ generator: "model" });

    const after = Conversation.parse(frames.at(-2)!.data);
    expect(after.status).toBe("ready");
    expect(after.drafts.templates).toEqual([{ ref: "usability", templateId: "usability" }]);
    expect(after.drafts.autousers).toEqual([
      { ref: "mobile", autouserId: "auto_mobile_shopper_slow_network", agentCount: 2 },
    ]);
    const message = ConversationMessage.parse(frames.at(-1)!.data);
    expect(message).toMatchObject({ generator: "model", status: "complete" });
    expect(message.parts[0]!.text).toBe(
      "I drafted a side-by-side comparison of the two checkouts, rated for usability by mobile shoppers.",
    );

    // The model saw the user's words, the tools, and the tools' answers on its second step.
    const [first, second] = provider.requests.slice(-2);
    expect(first!.apiKey).toBe("sk-platform");
    expect(first!.stream).toBe(true);
    expect(JSON.stringify(first!.body)).toContain("set_evaluation");
    expect(JSON.stringify(first!.body)).toContain("Compare https://shop.example/old");
    expect(JSON.stringify(second!.body)).toContain("The drafts are complete.");
  });

  it("ends the stream with an error event when the model fails, and the conversation stays usable", async () => {
    const conversation = await newConversation();
    provider.enqueue({ type: "server-error" });
    const failed = await converse(conversation.id, "Rate https://x.example/a for clarity");
    expect(failed.map((f) => f.event)).toEqual(["message_start", "error"]);
    expect(failed[1]!.data).toMatchObject({
      error: { type: "api_error", code: "model_error", details: { reason: "model_error" } },
    });
    const stored = bodyOf(
      await call(ConversationMessageList, `${server.api}/conversations/${conversation.id}/messages`, {
        headers: bearer(key),
      }),
    ).data;
    expect(stored.map((m) => [m.role, m.status])).toEqual([
      ["assistant", "failed"],
      ["user", "complete"],
    ]);
    const unchanged = bodyOf(
      await call(Conversation, `${server.api}/conversations/${conversation.id}`, { headers: bearer(key) }),
    );
    expect(unchanged.drafts).toEqual({ evaluation: {}, templates: [], autousers: [] });

    provider.enqueue({ type: "text", text: "Which design should I rate?" });
    const retry = await converse(conversation.id, "Rate it for clarity");
    expect(retry.map((f) => f.event).at(-1)).toBe("message");
    expect(ConversationMessage.parse(retry.at(-1)!.data).parts[0]!.text).toBe("Which design should I rate?");
  });
});
