import type { ModelProvider } from "../types";
import { anthropicProtocol } from "./providers/anthropic";
import { googleProtocol } from "./providers/google";
import {
  type ProviderServer,
  type ProviderServerOptions,
  startLoopbackServer,
} from "./providers/loopback-server";
import { openaiProtocol } from "./providers/openai";

export type { ProviderServer, ProviderServerOptions } from "./providers/loopback-server";
export type { ReceivedRequest, ScriptedReply, ScriptedToolCall, ScriptedUsage } from "./providers/script";

/**
 * Loopback servers speaking each provider's real wire protocol, for tests and local runs: point the AI SDK
 * (or a BYOK setting's `baseUrl`) at `server.baseUrl`, queue replies, read back the requests.
 */

/** OpenAI: the Responses API and Chat Completions (which openai-compatible servers speak too). */
export const startOpenAIServer = (options?: ProviderServerOptions): Promise<ProviderServer> =>
  startLoopbackServer(openaiProtocol, options);

/** Anthropic's Messages API. */
export const startAnthropicServer = (options?: ProviderServerOptions): Promise<ProviderServer> =>
  startLoopbackServer(anthropicProtocol, options);

/** Google's Gemini API (`generateContent`, `streamGenerateContent?alt=sse`). */
export const startGoogleServer = (options?: ProviderServerOptions): Promise<ProviderServer> =>
  startLoopbackServer(googleProtocol, options);

/** The server for a provider; `openai-compatible` is served by the OpenAI server's Chat Completions route. */
export function startProviderServer(
  provider: ModelProvider,
  options?: ProviderServerOptions,
): Promise<ProviderServer> {
  switch (provider) {
    case "openai":
    case "openai-compatible":
      return startOpenAIServer(options);
    case "anthropic":
      return startAnthropicServer(options);
    case "google":
      return startGoogleServer(options);
  }
}
