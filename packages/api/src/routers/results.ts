import {
  AgreementQuery,
  AiInsights,
  EvaluationAgreement,
  EvaluationResults,
  ExportQuery,
  IdParam,
  Rating,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import { apiProcedure, router } from "../trpc/init";

const tags = ["Evaluations"];

export const RatingExport = z
  .object({
    object: z.literal("evaluation_export"),
    evaluationId: z.string(),
    ratings: z.array(Rating),
  })
  .meta({ id: "RatingExport" });

/** Summaries asked for per user per minute: each may spend a model call on the team's key. */
const INSIGHTS_LIMIT = { key: "user", limit: 10, windowSec: 60, bucket: "ai-insights" } as const;

export const resultsRouter = router({
  // GET /evaluations/{id}/ai-insights — the latest summary of the ratings and raters' justifications
  insights: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/ai-insights",
        tags,
        summary: "Retrieve AI insights",
        description:
          "The latest summary of the results and raters' justifications: recurring themes, and strengths and " +
          "problems per comparison, each backed by quotes with their rating ids. `generator` says who wrote it: the " +
          "team's model, or (with no model configured) the extractive summarizer, which picks raters' own words by " +
          "term frequency and by the highest and lowest ratings. `stale` is true once ratings changed since; " +
          "`status: not_started` until one is asked for with POST.",
      },
      scope: "evaluations:read",
    })
    .input(z.object({ id: IdParam }))
    .output(AiInsights)
    .query(({ ctx, input }) => core.getInsights(ctx.core, ctx.actor, input.id)),

  // POST /evaluations/{id}/ai-insights — ask the worker for a new summary
  regenerateInsights: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations/{id}/ai-insights",
        tags,
        summary: "Regenerate AI insights",
        description:
          "Queues a new summary for the worker and answers 202 with its state (`queued`). While the latest summary " +
          "(or the one being written) is of the current ratings, nothing new is queued: summaries are cached by the " +
          "ratings' fingerprint, like results. 10 a minute per user.",
      },
      scope: "evaluations:write",
      successStatus: 202,
      routeLimit: INSIGHTS_LIMIT,
    })
    .input(z.object({ id: IdParam }).strict())
    .output(AiInsights)
    .mutation(({ ctx, input }) => core.requestInsights(ctx.core, ctx.actor, input.id)),

  // GET /evaluations/{id}/results — aggregated scores per template, comparison and rater
  results: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/results",
        tags,
        summary: "Retrieve results",
        description:
          "SSE: distribution, mean, standard deviation and 95% interval per template. SxS: wins, ties, mean preference with its 95% interval and a winner. Skipped ratings are excluded and counted.",
      },
      scope: "evaluations:read",
      trustedOutput: true,
      reusedBody: true,
    })
    .input(z.object({ id: IdParam }))
    .output(EvaluationResults)
    .query(({ ctx, input }) => core.getResults(ctx.core, ctx.actor, input.id)),

  // GET /evaluations/{id}/agreement — Krippendorff's alpha with a bootstrap interval
  agreement: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/agreement",
        tags,
        summary: "Retrieve rater agreement",
        description:
          "Krippendorff's alpha overall and per template, for all raters, humans, autousers, and humans against autousers, with a seeded bootstrap 95% interval.",
      },
      scope: "evaluations:read",
      trustedOutput: true,
      reusedBody: true,
    })
    .input(AgreementQuery.extend({ id: IdParam }))
    .output(EvaluationAgreement)
    .query(({ ctx, input }) => core.getAgreement(ctx.core, ctx.actor, input.id, input.metric)),

  // GET /evaluations/{id}/export — every rating, as JSON or as CSV (one row per rating and template)
  export: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/export",
        tags,
        summary: "Export ratings",
        description:
          "`format=csv` answers `text/csv` with one row per rating and template; `json` the ratings; `md` " +
          "answers `text/markdown` with a readable report: a summary, results per template and comparison, rater " +
          "agreement with its 95% interval, and the raters' comments at both ends of the scale.",
      },
      scope: ["evaluations:read", "ratings:read"],
      produces: ["text/csv", "text/markdown"],
    })
    .input(ExportQuery.extend({ id: IdParam }))
    .output(z.union([RatingExport, z.string()]))
    .query(async ({ ctx, input }) => {
      if (input.format === "md") {
        const report = await core.evaluationReportMarkdown(ctx.core, ctx.actor, input.id);
        ctx.response.raw = {
          contentType: "text/markdown; charset=utf-8",
          headers: { "Content-Disposition": `attachment; filename="${input.id}-report.md"` },
        };
        return report;
      }
      const { ratings, comparisonNames } = await core.exportRatings(ctx.core, ctx.actor, input.id);
      if (input.format === "csv") {
        ctx.response.raw = {
          contentType: "text/csv; charset=utf-8",
          headers: { "Content-Disposition": `attachment; filename="${input.id}-ratings.csv"` },
        };
        return core.ratingsToCsv(ratings, comparisonNames);
      }
      return { object: "evaluation_export" as const, evaluationId: input.id, ratings };
    }),
});
