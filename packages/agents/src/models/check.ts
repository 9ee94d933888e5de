import { generateText, Output } from "ai";
import { z } from "zod";
import type { ModelConfig } from "../types";
import { capabilitiesOf } from "./capabilities";
import { languageModelFor } from "./language-model";
import { classifyProviderError, type ProviderFailure } from "./provider-errors";
import { modelTelemetry } from "./telemetry";

export interface CheckOptions {
  /** Per call; a provider that has not answered by then counts as a timeout. Default 20 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export type ModelCheck =
  | { ok: true; latencyMs: number; usage: { inputTokens: number; outputTokens: number } }
  | { ok: false; latencyMs: number; error: ProviderFailure };

/** Runs one model call under a deadline and classifies whatever it threw. */
async function attempt<T>(
  options: CheckOptions,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<
  { ok: true; value: T; latencyMs: number } | { ok: false; error: ProviderFailure; latencyMs: number }
> {
  const deadline = AbortSignal.timeout(options.timeoutMs ?? 20_000);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const started = performance.now();
  try {
    const value = await run(signal);
    return { ok: true, value, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return {
      ok: false,
      error: classifyProviderError(error, { timedOut: deadline.aborted }),
      latencyMs: Math.round(performance.now() - started),
    };
  }
}

/** One minimal real call: does this key reach this model? */
export async function testModel(config: ModelConfig, options: CheckOptions = {}): Promise<ModelCheck> {
  const result = await attempt(options, (abortSignal) =>
    generateText({
      experimental_telemetry: modelTelemetry("model.check"),
      model: languageModelFor(config),
      prompt: "Reply with the single word OK.",
      maxOutputTokens: 16,
      maxRetries: 0,
      abortSignal,
    }),
  );
  if (!result.ok) return result;
  return {
    ok: true,
    latencyMs: result.latencyMs,
    usage: {
      inputTokens: result.value.usage.inputTokens ?? 0,
      outputTokens: result.value.usage.outputTokens ?? 0,
    },
  };
}

export interface ModelProbe {
  /** Whether the capability table knew the model. */
  known: boolean;
  imageInput: boolean;
  structuredOutput: boolean;
  /** Where each answer came from: the table, or a real call made by the probe. */
  basis: { imageInput: "table" | "call"; structuredOutput: "call" };
  /** Set when the provider could not be asked (key refused, unreachable, rate limited): nothing was learned. */
  error: ProviderFailure | null;
}

// A 1×1 PNG: the cheapest image a provider will accept.
const PIXEL = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);

const ProbeAnswer = z.object({ score: z.number().int().min(1).max(5), reason: z.string() });

/** A refusal of the request itself (not of the key, the address or the rate): the model lacks the feature. */
const refusesFeature = (failure: ProviderFailure) =>
  failure.code === "invalid_reply" ||
  (failure.code === "provider_error" &&
    failure.status !== null &&
    failure.status >= 400 &&
    failure.status < 500);

/**
 * What a model can do for the judge: structured output by a real call with a small schema; image input from
 * the capability table, confirmed by a real call with a one-pixel image when the table does not know the model.
 */
export async function probeModel(config: ModelConfig, options: CheckOptions = {}): Promise<ModelProbe> {
  const table = capabilitiesOf(config.provider, config.model);
  const structured = await attempt(options, (abortSignal) =>
    generateText({
      experimental_telemetry: modelTelemetry("model.check"),
      model: languageModelFor(config),
      prompt:
        "On a scale of 1 to 5, how clear is the sentence 'Press Save to keep your changes.'? Answer in JSON.",
      output: Output.object({ schema: ProbeAnswer }),
      maxOutputTokens: 200,
      maxRetries: 0,
      abortSignal,
    }),
  );
  const base = { known: table.known, imageInput: table.imageInput };
  if (!structured.ok && !refusesFeature(structured.error)) {
    return {
      ...base,
      structuredOutput: false,
      basis: { imageInput: "table", structuredOutput: "call" },
      error: structured.error,
    };
  }
  const structuredOutput = structured.ok;
  if (table.known) {
    return {
      ...base,
      structuredOutput,
      basis: { imageInput: "table", structuredOutput: "call" },
      error: null,
    };
  }
  const image = await attempt(options, (abortSignal) =>
    generateText({
      experimental_telemetry: modelTelemetry("model.check"),
      model: languageModelFor(config),
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Name the colour of this image in one word." },
            { type: "image", image: PIXEL, mediaType: "image/png" },
          ],
        },
      ],
      maxOutputTokens: 16,
      maxRetries: 0,
      abortSignal,
    }),
  );
  if (!image.ok && !refusesFeature(image.error)) {
    return {
      ...base,
      structuredOutput,
      basis: { imageInput: "table", structuredOutput: "call" },
      error: image.error,
    };
  }
  return {
    known: false,
    imageInput: image.ok,
    structuredOutput,
    basis: { imageInput: "call", structuredOutput: "call" },
    error: null,
  };
}
