/** Token counts a scripted reply reports in the provider's own usage fields. */
export interface ScriptedUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ScriptedToolCall {
  name: string;
  args: Record<string, unknown>;
  /** The provider's call id; one is made up when absent. */
  id?: string;
}

/**
 * One reply a loopback provider server gives to the next model request, in that provider's wire format.
 * Whether it is streamed (SSE) follows the request, as the real API does.
 */
export type ScriptedReply =
  | { type: "text"; text: string; usage?: ScriptedUsage }
  /**
   * Structured output: the value goes where the provider puts it for the request received (JSON text for
   * OpenAI, Gemini and Anthropic's `output_config.format`; a `json` tool call when the request forced one).
   */
  | { type: "json"; value: unknown; usage?: ScriptedUsage }
  | { type: "tool-calls"; calls: ScriptedToolCall[]; text?: string; usage?: ScriptedUsage }
  /** The provider's own answer to a wrong API key (status and body as the real API sends them). */
  | { type: "bad-key" }
  | { type: "rate-limited"; retryAfterSeconds: number }
  | { type: "server-error" }
  /** Accepts the request and never answers, until the client gives up or the server closes. */
  | { type: "hang" }
  /** A 200 whose body (or first event) is not valid JSON. */
  | { type: "malformed" };

export type ScriptedFailure = Extract<ScriptedReply, { type: "bad-key" | "rate-limited" | "server-error" }>;
export type ScriptedSuccess = Extract<ScriptedReply, { type: "text" | "json" | "tool-calls" }>;

export const DEFAULT_USAGE: ScriptedUsage = { inputTokens: 42, outputTokens: 17 };

/** A request as the server received it, for assertions (the key header, attached images, the body). */
export interface ReceivedRequest {
  method: string;
  /** Path and query, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`. */
  url: string;
  headers: Record<string, string>;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /** The model the request named (body field or Gemini's path). */
  model: string | null;
  stream: boolean;
  /** The key as this provider carries it (Bearer token, `x-api-key`, `x-goog-api-key` or `?key=`). */
  apiKey: string | null;
  /** How many image parts the request's messages held. */
  images: number;
}

/** Splits text into a few pieces so a streamed reply arrives in more than one event. */
export function chunksOf(text: string, parts = 3): string[] {
  if (text.length === 0) return [""];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

/** The text a success reply carries, if any. */
export function replyText(reply: ScriptedSuccess): string {
  if (reply.type === "text") return reply.text;
  if (reply.type === "json") return JSON.stringify(reply.value);
  return reply.text ?? "";
}

export function usageOf(reply: ScriptedSuccess): ScriptedUsage {
  return reply.usage ?? DEFAULT_USAGE;
}

/** Counts nodes of a JSON body matching a predicate, wherever they sit in the message tree. */
export function countNodes(value: unknown, match: (node: Record<string, unknown>) => boolean): number {
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + countNodes(item, match), 0);
  if (value === null || typeof value !== "object") return 0;
  const node = value as Record<string, unknown>;
  let count = match(node) ? 1 : 0;
  for (const child of Object.values(node)) count += countNodes(child, match);
  return count;
}
