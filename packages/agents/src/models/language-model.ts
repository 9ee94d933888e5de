import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import type { ModelConfig } from "../types";

/**
 * The AI SDK model for a config. Every provider takes `baseUrl`, so tests point them at loopback servers
 * that speak the provider's wire protocol, and operators can use proxies.
 */
export function languageModelFor(config: ModelConfig): LanguageModel {
  const apiKey = config.apiKey ?? undefined;
  const baseURL = config.baseUrl ?? undefined;
  switch (config.provider) {
    case "openai":
      return createOpenAI({ apiKey, baseURL })(config.model);
    case "anthropic":
      return createAnthropic({ apiKey, baseURL })(config.model);
    case "google":
      return createGoogleGenerativeAI({ apiKey, baseURL })(config.model);
    case "openai-compatible": {
      if (!baseURL) throw new Error("An openai-compatible model needs a base URL.");
      // Ollama, vLLM and LM Studio all accept `json_schema` response formats and report usage when streaming.
      return createOpenAICompatible({
        name: "openai-compatible",
        apiKey,
        baseURL,
        supportsStructuredOutputs: true,
        includeUsage: true,
      })(config.model);
    }
  }
}
