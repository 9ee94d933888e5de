import {
  AUTOUSER_STREAM_EVENTS,
  AutouserRun,
  AutouserRunList,
  AutouserRunTurns,
  AutouserStatus,
  CalibrationFreezeResult,
  CalibrationOptimizeResult,
  CalibrationStartInput,
  CalibrationStatus,
  IdParam,
  PageQueryShape,
  RunArtifacts,
  RunAutousersInput,
  RunAutousersResult,
  StopAutousersInput,
  StopAutousersResult,
  withCursorRules,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import type { ServerSentEvent } from "../request/reply";
import { apiProcedure, router } from "../trpc/init";
import { toList } from "./list";

const tags = ["Autousers"];
const RunPath = z.object({ id: IdParam, runId: IdParam });

export const autouserRunsRouter = router({
  // POST /evaluations/{id}/run-autousers — queue runs of autousers over the evaluation's comparisons
  run: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations/{id}/run-autousers",
        tags,
        summary: "Run autousers on an evaluation",
        description:
          "Queues one run per autouser and agent; each rates every chosen comparison once. Answers 202 with the " +
          "queued runs; a Draft evaluation moves to Running. Refused with 429 `quota_exceeded` when the team's " +
          "autouser ratings left this month (less those its unfinished runs will make) cannot cover the plan.",
      },
      scope: "autousers:write",
      successStatus: 202,
    })
    .input(RunAutousersInput)
    .output(RunAutousersResult)
    .mutation(({ ctx, input }) => core.runAutousers(ctx.core, ctx.actor, input)),

  // POST /evaluations/{id}/stop-autousers — cancel queued and running runs
  stop: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/evaluations/{id}/stop-autousers",
        tags,
        summary: "Stop autouser runs",
        description:
          "Cancels the named runs (every queued and running one when `runIds` is absent). A running agent stops " +
          "within seconds; ratings it made stay, and a cancelled run spends no quota.",
      },
      scope: "autousers:write",
      idempotent: false,
    })
    .input(StopAutousersInput)
    .output(StopAutousersResult)
    .mutation(({ ctx, input }) => core.stopAutousers(ctx.core, ctx.actor, input)),

  // GET /evaluations/{id}/autouser-runs — the evaluation's runs, newest first
  list: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/autouser-runs",
        tags,
        summary: "List autouser runs",
        description:
          "The evaluation's autouser runs, newest first, with their status, ratings planned and made, and tokens spent.",
      },
      scope: "autousers:read",
    })
    .input(withCursorRules(z.object({ ...PageQueryShape, id: IdParam })))
    .output(AutouserRunList)
    .query(async ({ ctx, input: { id, ...query } }) =>
      toList(ctx, await core.listRuns(ctx.core, ctx.actor, id, query)),
    ),

  // GET /evaluations/{id}/autouser-runs/{runId}
  get: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/autouser-runs/{runId}",
        tags,
        summary: "Retrieve an autouser run",
        description:
          "One autouser run: its autouser, agent, status, the comparisons it rated, tokens spent and any failure.",
      },
      scope: "autousers:read",
    })
    .input(RunPath)
    .output(AutouserRun)
    .query(({ ctx, input }) => core.getRun(ctx.core, ctx.actor, input.id, input.runId)),

  // GET /evaluations/{id}/autouser-runs/{runId}/turns — per-turn telemetry
  turns: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/autouser-runs/{runId}/turns",
        tags,
        summary: "List a run's turns",
        description:
          "Per turn: the action, the address, the screenshot's artifact name, tokens in and out, latency, cost.",
      },
      scope: "autousers:read",
    })
    .input(RunPath)
    .output(AutouserRunTurns)
    .query(({ ctx, input }) => core.listTurns(ctx.core, ctx.actor, input.id, input.runId)),

  // GET /evaluations/{id}/autouser-runs/{runId}/artifacts — the run's screenshots
  artifacts: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/autouser-runs/{runId}/artifacts",
        tags,
        summary: "List a run's artifacts",
        description:
          "The screenshots a run captured, each with a signed download link valid until `expiresAt`.",
      },
      scope: "autousers:read",
    })
    .input(RunPath)
    .output(RunArtifacts)
    .query(({ ctx, input }) =>
      core.listArtifacts(ctx.core, ctx.actor, ctx.services.storage, input.id, input.runId),
    ),

  // GET /evaluations/{id}/autouser-status — counts, progress and time left
  status: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/evaluations/{id}/autouser-status",
        tags,
        summary: "Autouser run status",
        description:
          "Counts of the evaluation's runs by status, overall progress and an estimate of the time left.",
      },
      scope: "autousers:read",
    })
    .input(z.object({ id: IdParam }))
    .output(AutouserStatus)
    .query(({ ctx, input }) => core.autouserStatus(ctx.core, ctx.actor, input.id)),

  // GET /evaluations/{id}/autouser-stream — live run progress as server-sent events
  stream: apiProcedure
    .meta({
      stream: {
        method: "GET",
        path: "/evaluations/{id}/autouser-stream",
        summary: "Stream autouser run progress",
        description:
          "A `snapshot` first, then every run event in order, then `done` once no run is queued or running. " +
          "Event ids grow by one per evaluation: reconnect with `Last-Event-ID` to resume after the last one seen.",
        tags,
        events: { ...AUTOUSER_STREAM_EVENTS },
      },
      scope: "autousers:read",
    })
    .input(
      z.object({
        id: IdParam,
        lastEventId: z
          .string()
          .regex(/^\d{1,12}$/)
          .optional(),
      }),
    )
    .subscription(async function* ({ ctx, input, signal }): AsyncGenerator<ServerSentEvent> {
      yield* core.streamRunEvents(ctx.core, ctx.actor, input.id, {
        lastEventId: input.lastEventId,
        waker: ctx.services.runWaker,
        signal,
      });
    }),

  // POST /autousers/{id}/calibration — run the autouser on comparisons humans rated and measure agreement
  calibrate: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/autousers/{id}/calibration",
        tags,
        summary: "Calibrate an autouser",
        description:
          "Runs the autouser on up to `sampleSize` comparisons of the evaluation that humans rated (202); " +
          "`GET /autousers/{id}/calibration` shows progress, then Krippendorff's alpha against the humans and the " +
          "bias per template with bootstrap intervals. Its verdicts are not ratings of the evaluation.",
      },
      scope: "autousers:write",
      successStatus: 202,
    })
    .input(CalibrationStartInput)
    .output(CalibrationStatus)
    .mutation(({ ctx, input }) => core.startCalibration(ctx.core, ctx.actor, input)),

  // GET /autousers/{id}/calibration — the latest calibration
  calibration: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/autousers/{id}/calibration",
        tags,
        summary: "Retrieve the calibration",
        description:
          "The autouser's latest calibration: its status, the comparisons used and how well the autouser agreed with the human raters.",
      },
      scope: "autousers:read",
    })
    .input(z.object({ id: IdParam }))
    .output(CalibrationStatus)
    .query(({ ctx, input }) => core.getCalibration(ctx.core, ctx.actor, input.id)),

  // POST /autousers/{id}/calibration/freeze — freeze the calibrated rubric
  freeze: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/autousers/{id}/calibration/freeze",
        tags,
        summary: "Freeze the calibrated rubric",
        description:
          "Freezes the rubric the latest completed calibration measured, with its alpha, makes it the autouser's " +
          "active rubric and emits `calibration.frozen`. A frozen rubric never changes; a new version replaces it.",
      },
      scope: "autousers:write",
      idempotent: false,
    })
    .input(z.object({ id: IdParam }))
    .output(CalibrationFreezeResult)
    .mutation(({ ctx, input }) => core.freezeCalibration(ctx.core, ctx.actor, input.id)),

  // POST /autousers/{id}/calibration/optimize — fit the template weights to the humans on a held-out split
  optimize: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/autousers/{id}/calibration/optimize",
        tags,
        summary: "Optimise the rubric weights",
        description:
          "Searches the weights of the templates in the persona's judgement (coordinate ascent over a grid) that " +
          "maximise Krippendorff's alpha between the autouser's and the humans' weighted composite on a seeded 70% " +
          "of the latest completed calibration's comparisons, and reports alpha before and after on the other " +
          "30% with seeded 95% bootstrap intervals. The proposal is saved as the next unfrozen version of the " +
          "calibrated rubric; it is never frozen or made active by this call. Errors: 409 " +
          "`calibration_not_completed` (no completed calibration yet), 422 `calibration_too_few_pairs` (fewer " +
          "than 6 comparisons rated by both), 404 `autouser_not_found` (no such autouser in your teams).",
      },
      scope: "autousers:write",
      idempotent: false,
    })
    .input(z.object({ id: IdParam }))
    .output(CalibrationOptimizeResult)
    .mutation(({ ctx, input }) => core.optimizeCalibration(ctx.core, ctx.actor, input.id)),
});
