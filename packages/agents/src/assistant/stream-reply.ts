import { type ModelMessage, stepCountIs, streamText, type ToolSet, tool } from "ai";
import type { z } from "zod";
import { languageModelFor } from "../models/language-model";
import { modelTelemetry } from "../models/telemetry";
import type { ModelConfig } from "../types";

/** A tool the assistant may call; it answers in text what it did, for the model's next step. */
export interface AssistantTool {
  description: string;
  inputSchema: z.ZodType;
  execute(input: unknown): Promise<string>;
}

export interface StreamReplyOptions {
  config: ModelConfig;
  system: string;
  messages: { role: "user" | "assistant"; text: string }[];
  tools: Record<string, AssistantTool>;
  onText(delta: string): void;
  signal: AbortSignal;
  /** Model steps at most (each may call tools); the last answers in text. */
  maxSteps?: number;
}

/**
 * Streams one chat reply from a model that may call tools between its words: text goes to `onText` as it
 * comes, tools run as the model calls them, and any provider failure is thrown.
 */
export async function streamAssistantReply(options: StreamReplyOptions): Promise<{ steps: number }> {
  const tools: ToolSet = {};
  for (const [name, t] of Object.entries(options.tools)) {
    tools[name] = tool({
      description: t.description,
      inputSchema: t.inputSchema,
      execute: (input: unknown) => t.execute(input),
    });
  }
  const messages: ModelMessage[] = options.messages.map((m) => ({ role: m.role, content: m.text }));
  const result = streamText({
    experimental_telemetry: modelTelemetry("assistant.reply"),
    model: languageModelFor(options.config),
    system: options.system,
    messages,
    tools,
    stopWhen: stepCountIs(options.maxSteps ?? 5),
    abortSignal: options.signal,
    maxRetries: 0,
  });
  let steps = 0;
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") options.onText(part.text);
    else if (part.type === "finish-step") steps++;
    else if (part.type === "error") throw part.error;
    else if (part.type === "abort") throw new Error("The reply was aborted.");
  }
  return { steps };
}
