import {
  IdParam,
  PageQueryShape,
  PublicRater,
  PublicRaterList,
  Rating,
  RatingBulkDeleteInput,
  RatingBulkDeleteResult,
  RatingFilterShape,
  RatingList,
  RatingSubmission,
  withCursorRules,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import { apiProcedure, router } from "../trpc/init";
import { toList } from "./list";

const tags = ["Ratings"];

export const ratingsRouter = router({
  // GET /evaluations/{id}/ratings — the evaluation's ratings, newest first
  list: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/ratings",
        tags,
        summary: "List ratings",
        description:
          "The evaluation's ratings, newest first, from people and autousers, filterable by comparison and rater kind.",
      },
      scope: "ratings:read",
    })
    .input(withCursorRules(z.object({ ...PageQueryShape, ...RatingFilterShape, id: IdParam })))
    .output(RatingList)
    .query(async ({ ctx, input: { id, ...query } }) =>
      toList(ctx, await core.listRatings(ctx.core, ctx.actor, id, query)),
    ),

  // POST /evaluations/{id}/ratings — submit one rating of one comparison
  create: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations/{id}/ratings",
        tags,
        summary: "Submit a rating",
        description:
          "Rates one comparison as the caller. Only Running evaluations take ratings; one per rater and comparison unless `allowMultipleRatings`.",
      },
      scope: "ratings:write",
      successStatus: 201,
    })
    .input(RatingSubmission.extend({ id: IdParam }))
    .output(Rating)
    .mutation(({ ctx, input: { id, ...rating } }) => core.createRating(ctx.core, ctx.actor, id, rating)),

  // GET /evaluations/{id}/ratings/{ratingId} — one rating
  get: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/ratings/{ratingId}",
        tags,
        summary: "Retrieve a rating",
        description: "One rating with its scores per template and the rater's justification.",
      },
      scope: "ratings:read",
    })
    .input(z.object({ id: IdParam, ratingId: IdParam }))
    .output(Rating)
    .query(({ ctx, input }) => core.getRating(ctx.core, ctx.actor, input.id, input.ratingId)),

  // POST /evaluations/{id}/ratings/bulk-delete — delete several ratings of a Running evaluation
  bulkDelete: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations/{id}/ratings/bulk-delete",
        tags,
        summary: "Delete ratings",
        description:
          "Deletes up to 100 ratings of a Running evaluation by id, and answers which were deleted and which were not found; results are computed without them.",
      },
      scope: "ratings:write",
    })
    .input(RatingBulkDeleteInput.extend({ id: IdParam }))
    .output(RatingBulkDeleteResult)
    .mutation(({ ctx, input }) => core.bulkDeleteRatings(ctx.core, ctx.actor, input.id, input.ids)),

  // GET /evaluations/{id}/public-raters — people who rated through the share link
  publicRaters: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/public-raters",
        tags: ["Evaluations"],
        summary: "List public raters",
        description:
          "People who rated through the evaluation's share link, with how many ratings each gave and whether they are excluded.",
      },
      scope: "evaluations:read",
    })
    .input(withCursorRules(z.object({ ...PageQueryShape, id: IdParam })))
    .output(PublicRaterList)
    .query(async ({ ctx, input: { id, ...query } }) =>
      toList(ctx, await core.listPublicRaters(ctx.core, ctx.actor, id, query)),
    ),

  // POST /evaluations/{id}/public-raters/{raterId}/exclude — stop a rater, and drop their ratings from the results
  excludePublicRater: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations/{id}/public-raters/{raterId}/exclude",
        tags: ["Evaluations"],
        summary: "Exclude a public rater",
        description:
          "The rater can no longer rate through the link (403 `share_rater_excluded`), and their ratings leave " +
          "the results and agreement. Their ratings stay stored and exported.",
      },
      scope: "evaluations:write",
      idempotent: false,
    })
    .input(z.object({ id: IdParam, raterId: IdParam }).strict())
    .output(PublicRater)
    .mutation(({ ctx, input }) => core.excludePublicRater(ctx.core, ctx.actor, input.id, input.raterId)),
});
