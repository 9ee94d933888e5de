import {
  AgreementQuery,
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

export const resultsRouter = router({
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
          "`format=csv` answers `text/csv` with one row per rating and template; `json` the ratings.",
      },
      scope: ["evaluations:read", "ratings:read"],
      produces: ["text/csv"],
    })
    .input(ExportQuery.extend({ id: IdParam }))
    .output(z.union([RatingExport, z.string()]))
    .query(async ({ ctx, input }) => {
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
