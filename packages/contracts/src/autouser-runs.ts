import { z } from "zod";
import { AutouserRubric } from "./autousers";
import { DateTime, IdParam } from "./common";
import { listOf } from "./pagination";

export const AUTOUSER_RUN_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export const AutouserRunStatus = z.enum(AUTOUSER_RUN_STATUSES);
export type AutouserRunStatus = (typeof AUTOUSER_RUN_STATUSES)[number];

export const CREDENTIAL_SOURCES = ["byok", "platform", "heuristic"] as const;

/**
 * Planning figure for dry runs and the dashboard's estimate: what one autouser rating of one comparison costs on
 * a model. The heuristic judge (no model) costs nothing.
 */
export const ESTIMATED_USD_PER_AUTOUSER_RUN = 0.02;

/** The most runs one request may queue (autousers × agents). */
export const MAX_RUNS_PER_REQUEST = 200;

export const AutouserRun = z
  .object({
    id: z.string(),
    object: z.literal("autouser_run"),
    evaluationId: z.string(),
    autouserId: z.string(),
    autouserType: z
      .enum(["system", "team"])
      .meta({ description: "A shared system persona or the team's own." }),
    agentIndex: z
      .number()
      .int()
      .meta({ description: "Which of the autouser's agents this run is (0-based)." }),
    status: AutouserRunStatus.meta({
      description: "`queued` → `running` → `completed`, `failed` or `cancelled`.",
    }),
    comparisonIds: z.array(z.string()),
    plannedRatings: z.number().int().meta({ description: "One rating per comparison of the run." }),
    ratingsCreated: z.number().int(),
    attemptCount: z
      .number()
      .int()
      .meta({ description: "Workers that have taken the run; one that dies is replaced after its lease." }),
    credentialSource: z.enum(CREDENTIAL_SOURCES).nullable().meta({
      description:
        "Whose model rated: `byok` (the team's key), `platform` (the operator's), `heuristic` (measured, no model); null until started.",
    }),
    model: z.string().nullable(),
    rubricVersion: z.number().int().nullable(),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    estimatedCostUsd: z.number(),
    artifactsPath: z.string().nullable().meta({
      description: "The API path that lists the run's screenshots (`RunArtifacts`), once the run started.",
    }),
    error: z.string().nullable(),
    replacesRunId: z.string().nullable(),
    startedAt: DateTime.nullable(),
    completedAt: DateTime.nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: "AutouserRun" });
export type AutouserRun = z.infer<typeof AutouserRun>;
export const AutouserRunList = listOf(AutouserRun, "AutouserRunList");

export const RunAutousersInput = z
  .object({
    id: IdParam,
    autouserIds: z.array(IdParam).min(1).max(50),
    comparisonIds: z
      .array(IdParam)
      .min(1)
      .max(500)
      .optional()
      .meta({ description: "The comparisons to rate; all of the evaluation's when absent." }),
    agentCount: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(1)
      .meta({ description: "Agents per autouser; each is its own run and rates every comparison once." }),
    replaceRunId: IdParam.optional().meta({
      description: "A run this request replaces: cancelled first if it has not finished.",
    }),
  })
  .strict();
export type RunAutousersInput = z.infer<typeof RunAutousersInput>;

export const RunAutousersResult = z
  .object({
    object: z.literal("autouser_run_batch"),
    data: z.object({ runs: z.array(AutouserRun) }),
    plannedRatings: z.number().int(),
  })
  .meta({ id: "AutouserRunBatch" });

export const StopAutousersInput = z
  .object({
    id: IdParam,
    runIds: z
      .array(IdParam)
      .min(1)
      .max(MAX_RUNS_PER_REQUEST)
      .optional()
      .meta({ description: "Runs to stop; every queued and running run of the evaluation when absent." }),
  })
  .strict();

export const StopAutousersResult = z
  .object({
    object: z.literal("autouser_run_stop"),
    cancelled: z.array(z.string()),
    notCancelled: z
      .array(z.string())
      .meta({ description: "Runs named that had already finished or are not this evaluation's." }),
  })
  .meta({ id: "AutouserRunStop" });

export const AutouserStatusCounts = z.object({
  total: z.number().int(),
  queued: z.number().int(),
  running: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
  cancelled: z.number().int(),
});

export const AutouserStatus = z
  .object({
    object: z.literal("autouser_status"),
    evaluationId: z.string(),
    summary: AutouserStatusCounts,
    ratingsCreated: z.number().int(),
    plannedRatings: z
      .number()
      .int()
      .meta({ description: "Ratings the runs not cancelled or failed will make." }),
    progress: z.number().meta({ description: "Share of planned ratings made, 0 to 1." }),
    estimatedSecondsLeft: z
      .number()
      .int()
      .nullable()
      .meta({ description: "From the pace so far; null before the first rating or when nothing is left." }),
    runs: z.array(AutouserRun),
  })
  .meta({ id: "AutouserStatus" });
export type AutouserStatus = z.infer<typeof AutouserStatus>;

export const TurnTelemetry = z
  .object({
    id: z.string(),
    attempt: z.number().int(),
    turn: z.number().int(),
    comparisonId: z.string().nullable(),
    side: z.string().nullable(),
    action: z.record(z.string(), z.unknown()),
    detail: z.string(),
    url: z.string().nullable(),
    screenshot: z.string().nullable().meta({ description: "The artifact name of the turn's screenshot." }),
    screenshotFileId: z.string().nullable().meta({
      description: "The file holding the screenshot: `GET /files/{fileId}` redirects to its bytes.",
    }),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    latencyMs: z.number().int(),
    costUsd: z.number(),
    createdAt: DateTime,
  })
  .meta({ id: "TurnTelemetry" });

export const AutouserRunTurns = z
  .object({
    object: z.literal("autouser_run_turns"),
    runId: z.string(),
    data: z.array(TurnTelemetry).meta({ description: "Every turn of every attempt, in order." }),
  })
  .meta({ id: "AutouserRunTurns" });

export const RunArtifacts = z
  .object({
    object: z.literal("run_artifacts"),
    runId: z.string(),
    artifactsPath: z.string().nullable(),
    data: z.array(
      z.object({
        name: z.string(),
        fileId: z
          .string()
          .meta({ description: "The artifact's file; `GET /files/{fileId}` gives a fresh link." }),
        contentType: z.string(),
        size: z.number().int(),
        turn: z.number().int().nullable(),
        url: z.string().meta({ description: "A signed link to the bytes, valid until `expiresAt`." }),
        expiresAt: DateTime,
      }),
    ),
  })
  .meta({ id: "RunArtifacts" });

export const AUTOUSER_STREAM_EVENTS = {
  snapshot: "`AutouserStatus`, first: the state when the stream opened (not sent when resuming)",
  queued: "`{run}`: a run was queued",
  started: "`{run}`: a worker started a run",
  turn: "`{runId, turn}`: an agent step, as in the turns list",
  rating: "`{runId, rating}`: a rating was made",
  completed: "`{run}`: a run completed",
  failed: "`{run}`: a run failed (its `error` says why)",
  cancelled: "`{run}`: a run was stopped",
  done: "`AutouserStatus`: no run is queued or running; the stream ends",
} as const;

export const CalibrationStartInput = z
  .object({
    id: IdParam,
    rubricId: IdParam,
    evaluationId: IdParam,
    sampleSize: z.number().int().min(1).max(200).meta({
      description: "Comparisons humans rated to run the autouser on, those with most human ratings first.",
    }),
  })
  .strict();

const Interval = z.object({ lower: z.number(), upper: z.number() });

export const CalibrationStatus = z
  .object({
    id: z.string(),
    object: z.literal("calibration"),
    autouserId: z.string(),
    rubricId: z.string(),
    rubricVersion: z.number().int(),
    evaluationId: z.string(),
    sampleSize: z.number().int(),
    status: z.enum(["running", "completed", "failed"]),
    runId: z.string().nullable(),
    runStatus: AutouserRunStatus.nullable(),
    progress: z.object({ comparisons: z.number().int(), rated: z.number().int() }),
    figures: z
      .object({
        metric: z.string(),
        krippendorffAlpha: z.number().nullable(),
        alphaCi95: Interval.nullable(),
        alphaUndefinedReason: z.string().nullable(),
        comparisons: z.number().int(),
        bias: z.record(
          z.string(),
          z.object({ mean: z.number(), ci95: Interval.nullable(), comparisons: z.number().int() }),
        ),
      })
      .nullable()
      .meta({
        description:
          "Once measured: Krippendorff's alpha (interval) between the autouser and the human consensus of each comparison and template, and the autouser's mean bias per template (autouser minus humans), with 95% bootstrap intervals.",
      }),
    error: z.string().nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: "CalibrationStatus" });
export type CalibrationStatus = z.infer<typeof CalibrationStatus>;

export const CalibrationFreezeResult = z
  .object({
    object: z.literal("calibration_freeze"),
    autouser: z.object({
      id: z.string(),
      object: z.literal("autouser"),
      name: z.string(),
      teamId: z.string().nullable(),
      calibrationStatus: z.string(),
      activeRubricId: z.string().nullable(),
    }),
    rubric: z.object({
      id: z.string(),
      autouserId: z.string(),
      dimensionId: z.string(),
      name: z.string(),
      version: z.number().int(),
      isFrozen: z.boolean(),
      krippendorffAlpha: z.number().nullable(),
      frozenAt: DateTime,
    }),
  })
  .meta({ id: "CalibrationFreeze" });

const WeightsFigure = z
  .object({
    weights: z.record(z.string(), z.number()).meta({ description: "Template id → weight in the composite." }),
    krippendorffAlpha: z.number().nullable(),
    alphaCi95: Interval.nullable(),
  })
  .meta({
    description: "Alpha (interval) on the held-out comparisons, with a seeded 95% bootstrap interval.",
  });

export const CalibrationOptimizeResult = z
  .object({
    object: z.literal("calibration_optimization"),
    autouserId: z.string(),
    calibrationId: z.string(),
    metric: z.literal("interval"),
    split: z.object({
      seed: z.number().int(),
      fit: z.number().int().meta({ description: "Comparisons the weights were fitted on (about 70%)." }),
      heldOut: z.number().int().meta({ description: "Comparisons the before/after alpha is measured on." }),
    }),
    search: z.object({
      grid: z.array(z.number()),
      passes: z.number().int(),
      evaluations: z.number().int(),
      fitAlphaBefore: z.number().nullable(),
      fitAlphaAfter: z.number().nullable(),
    }),
    before: WeightsFigure,
    after: WeightsFigure,
    /** The proposed rubric, saved as the next unfrozen (draft) version; freezing it makes it used. */
    rubric: AutouserRubric,
  })
  .meta({ id: "CalibrationOptimization" });
export type CalibrationOptimizeResult = z.infer<typeof CalibrationOptimizeResult>;
