import { describe, expect, it } from "vitest";
import { languageModelFor } from "../src";

describe("languageModelFor", () => {
  it("names the provider and model it was given", () => {
    const model = languageModelFor({
      provider: "anthropic",
      model: "claude-test",
      apiKey: "k",
      baseUrl: "http://127.0.0.1:1/v1",
      source: "byok",
    });
    expect(typeof model).toBe("object");
    expect(model).toMatchObject({ modelId: "claude-test" });
  });

  it("refuses an openai-compatible model without a base URL", () => {
    expect(() =>
      languageModelFor({
        provider: "openai-compatible",
        model: "llama3",
        apiKey: null,
        baseUrl: null,
        source: "byok",
      }),
    ).toThrow(/base URL/);
  });
});
