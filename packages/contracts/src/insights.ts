import { z } from "zod";
import { DateTime } from "./common";

export const INSIGHTS_STATUSES = ["not_started", "queued", "running", "ready", "failed"] as const;

/** A rater's words, kept with the rating they came from so every claim can be checked. */
export const InsightQuote = z
  .object({
    ratingId: z.string(),
    text: z.string(),
  })
  .meta({ id: "InsightQuote" });
export type InsightQuote = z.infer<typeof InsightQuote>;

export const InsightPoint = z
  .object({
    text: z.string(),
    quotes: z.array(InsightQuote),
  })
  .meta({ id: "InsightPoint" });
export type InsightPoint = z.infer<typeof InsightPoint>;

export const InsightTheme = z
  .object({
    label: z.string(),
    mentions: z.number().int().meta({ description: "How many justifications speak of it." }),
    quotes: z.array(InsightQuote),
  })
  .meta({ id: "InsightTheme" });
export type InsightTheme = z.infer<typeof InsightTheme>;

export const ComparisonInsight = z
  .object({
    comparisonId: z.string(),
    name: z.string().nullable(),
    ratingCount: z.number().int(),
    strengths: z.array(InsightPoint),
    problems: z.array(InsightPoint),
  })
  .meta({ id: "ComparisonInsight" });
export type ComparisonInsight = z.infer<typeof ComparisonInsight>;

/** What a summary holds, whoever wrote it. */
export const InsightsSummary = z.object({
  summary: z.string(),
  themes: z.array(InsightTheme),
  comparisons: z.array(ComparisonInsight),
});
export type InsightsSummary = z.infer<typeof InsightsSummary>;

export const AiInsights = z
  .object({
    object: z.literal("ai_insights"),
    evaluationId: z.string(),
    status: z.enum(INSIGHTS_STATUSES).meta({
      description:
        "`not_started` until one is asked for; `queued` and `running` while the worker writes it; `ready`; `failed` with `error`.",
    }),
    generator: z
      .enum(["model", "extractive"])
      .nullable()
      .meta({
        description:
          "`model`: written by the team's model (BYOK or the platform default). `extractive`: no model was configured, so " +
          "the summary is the raters' own words, picked by term frequency and by the highest and lowest ratings.",
      }),
    model: z.string().nullable(),
    stale: z.boolean().meta({ description: "Ratings changed since it was written; POST to regenerate." }),
    ratingCount: z.number().int().meta({ description: "Ratings it was written from." }),
    summary: z.string().nullable(),
    themes: z.array(InsightTheme),
    comparisons: z.array(ComparisonInsight),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    requestedAt: DateTime.nullable(),
    generatedAt: DateTime.nullable(),
  })
  .meta({ id: "AiInsights" });
export type AiInsights = z.infer<typeof AiInsights>;
