import type { ModelProvider } from "../types";
import { lookupModel } from "./model-table";

/** US dollars per million tokens, as the provider's price list states for standard (non-batch) requests. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

export type PriceTable = Partial<Record<ModelProvider, Record<string, ModelPrice>>>;

const price = (inputPerMillion: number, outputPerMillion: number): ModelPrice => ({
  inputPerMillion,
  outputPerMillion,
});

/**
 * Public list prices per model family (keys are model-id prefixes; the longest match wins). Self-hosted
 * `openai-compatible` servers cost nothing per token. A model missing here is charged 0 and its tokens are
 * still recorded; operators add or correct prices with the judge's `prices` option (see docs/models.md).
 */
export const DEFAULT_PRICES: PriceTable = {
  openai: {
    "gpt-4o": price(2.5, 10),
    "gpt-4o-mini": price(0.15, 0.6),
    "gpt-4.1": price(2, 8),
    "gpt-4.1-mini": price(0.4, 1.6),
    "gpt-4.1-nano": price(0.1, 0.4),
    "gpt-5": price(1.25, 10),
    "gpt-5-mini": price(0.25, 2),
    "gpt-5-nano": price(0.05, 0.4),
    o3: price(2, 8),
    "o4-mini": price(1.1, 4.4),
  },
  anthropic: {
    "claude-opus-4": price(15, 75),
    "claude-sonnet-4": price(3, 15),
    "claude-3-7-sonnet": price(3, 15),
    "claude-haiku-4-5": price(1, 5),
    "claude-3-5-haiku": price(0.8, 4),
  },
  google: {
    "gemini-2.5-pro": price(1.25, 10),
    "gemini-2.5-flash": price(0.3, 2.5),
    "gemini-2.5-flash-lite": price(0.1, 0.4),
    "gemini-2.0-flash": price(0.1, 0.4),
    "gemini-2.0-flash-lite": price(0.075, 0.3),
  },
};

/** The price of a model: the override table first, then the defaults; null when neither knows it. */
export function priceOf(provider: ModelProvider, model: string, overrides?: PriceTable): ModelPrice | null {
  if (provider === "openai-compatible" && !overrides?.["openai-compatible"]) return price(0, 0);
  return (
    lookupModel(overrides ?? {}, provider, model) ?? lookupModel(DEFAULT_PRICES, provider, model) ?? null
  );
}

/** What a call cost in US dollars, rounded to a millionth of a dollar; 0 for an unknown model. */
export function costOf(
  usage: { inputTokens: number; outputTokens: number },
  provider: ModelProvider,
  model: string,
  overrides?: PriceTable,
): number {
  const known = priceOf(provider, model, overrides);
  if (!known) return 0;
  const usd =
    (usage.inputTokens * known.inputPerMillion + usage.outputTokens * known.outputPerMillion) / 1_000_000;
  return Math.round(usd * 1_000_000) / 1_000_000;
}
