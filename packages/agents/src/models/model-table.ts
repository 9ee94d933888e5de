import type { ModelProvider } from "../types";

/**
 * Finds the entry for a model id in a table keyed by model-id prefix, the longest prefix winning, so dated
 * snapshots (`gpt-4o-mini-2024-07-18`, `claude-sonnet-4-5-20250929`) find their family and `gpt-4.1-mini`
 * is not priced as `gpt-4.1`. Gemini ids may carry a `models/` prefix, which is ignored.
 */
export function lookupModel<T>(
  table: Partial<Record<ModelProvider, Record<string, T>>>,
  provider: ModelProvider,
  model: string,
): T | undefined {
  const entries = table[provider];
  if (!entries) return undefined;
  const id = model.replace(/^models\//, "").toLowerCase();
  let best: { prefix: string; value: T } | undefined;
  for (const [prefix, value] of Object.entries(entries)) {
    if (id.startsWith(prefix) && (!best || prefix.length > best.prefix.length)) best = { prefix, value };
  }
  return best?.value;
}
