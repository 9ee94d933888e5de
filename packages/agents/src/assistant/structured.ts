import { generateText, Output } from "ai";
import type { z } from "zod";
import { languageModelFor } from "../models/language-model";
import { modelTelemetry } from "../models/telemetry";
import type { ModelConfig } from "../types";

/** One structured answer from a model, checked against `schema`; provider failures are thrown. */
export async function generateStructured<S extends z.ZodType>(options: {
  config: ModelConfig;
  system: string;
  prompt: string;
  schema: S;
  name: string;
  signal: AbortSignal;
  maxOutputTokens?: number;
}): Promise<z.infer<S>> {
  const result = await generateText({
    experimental_telemetry: modelTelemetry("assistant.structured"),
    model: languageModelFor(options.config),
    system: options.system,
    prompt: options.prompt,
    output: Output.object({ schema: options.schema, name: options.name }),
    maxOutputTokens: options.maxOutputTokens ?? 4000,
    maxRetries: 0,
    abortSignal: options.signal,
  });
  return result.output as z.infer<S>;
}
