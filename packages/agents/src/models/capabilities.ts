import type { ModelProvider } from "../types";
import { lookupModel } from "./model-table";

/** What a model accepts and can answer, as far as the judge and the builder care. */
export interface ModelCapabilities {
  /** Accepts images in the prompt (the judge then sends the screenshot). */
  imageInput: boolean;
  /** Answers JSON constrained by a schema natively (otherwise the SDK asks for JSON and validates it). */
  structuredOutput: boolean;
}

const vision: ModelCapabilities = { imageInput: true, structuredOutput: true };
const textOnly: ModelCapabilities = { imageInput: false, structuredOutput: true };
const localVision: ModelCapabilities = { imageInput: true, structuredOutput: true };

/** Model families by id prefix, from each provider's model documentation; the longest prefix wins. */
const KNOWN: Partial<Record<ModelProvider, Record<string, ModelCapabilities>>> = {
  openai: {
    "gpt-4o": vision,
    "gpt-4.1": vision,
    "gpt-5": vision,
    o3: vision,
    "o3-mini": textOnly,
    "o4-mini": vision,
    "gpt-3.5": { imageInput: false, structuredOutput: false },
  },
  anthropic: {
    "claude-opus-4": vision,
    "claude-sonnet-4": vision,
    "claude-3-7-sonnet": vision,
    "claude-haiku-4-5": vision,
    "claude-3-5-haiku": textOnly,
  },
  google: {
    "gemini-2.5": vision,
    "gemini-2.0": vision,
    "gemini-1.5": vision,
  },
  "openai-compatible": {
    llava: localVision,
    "llama3.2-vision": localVision,
    llama4: localVision,
    "qwen2.5vl": localVision,
    "qwen2.5-vl": localVision,
    gemma3: localVision,
    "minicpm-v": localVision,
    llama3: textOnly,
    mistral: textOnly,
    "qwen2.5": textOnly,
    qwen3: textOnly,
    phi: textOnly,
  },
};

/**
 * A model's capabilities from the table, and whether the table knew it. Unknown hosted models are assumed
 * to take images (every current family of the three does); unknown local models are assumed not to, so the
 * judge sends text only until a probe shows otherwise.
 */
export function capabilitiesOf(
  provider: ModelProvider,
  model: string,
): ModelCapabilities & { known: boolean } {
  const known = lookupModel(KNOWN, provider, model);
  if (known) return { ...known, known: true };
  return provider === "openai-compatible"
    ? { imageInput: false, structuredOutput: false, known: false }
    : { imageInput: true, structuredOutput: true, known: false };
}
