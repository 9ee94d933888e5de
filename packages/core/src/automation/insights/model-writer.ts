import { generateStructured, type ModelConfig } from "@rubricon/agents";
import { InsightsSummary } from "@rubricon/contracts";
import type { InsightsWriter } from "./service";

const SYSTEM =
  "You summarise the results of a UX evaluation for its owners. Read the raters' justifications and write: a short " +
  "summary; recurring themes (a label, how many justifications mention it, quotes); and for each comparison its " +
  "strengths and problems. Every quote must be copied word for word from one justification, with that rating's id. " +
  "Scores run from 0 (worst, or side A preferred in side-by-side) to 1 (best, or side B preferred).";

/** AI insights written by the team's model; quotes it cannot back with a rating are dropped afterwards. */
export function modelInsightsWriter(config: ModelConfig): InsightsWriter {
  return {
    generator: "model",
    model: config.model,
    write(input, signal) {
      const prompt = JSON.stringify({
        type: input.type,
        comparisons: input.comparisons,
        ratings: input.sources
          .filter((s) => s.justification.trim())
          .map((s) => ({
            ratingId: s.ratingId,
            comparisonId: s.comparisonId,
            score: s.score === null ? null : Math.round(s.score * 100) / 100,
            justification: s.justification.slice(0, 2000),
          })),
      });
      return generateStructured({
        config,
        system: SYSTEM,
        prompt,
        schema: InsightsSummary,
        name: "insights",
        signal,
      });
    },
  };
}
