import { z } from "zod";
import { SharePermission } from "./collaboration";
import { DateTime } from "./common";
import { listOf, PageQueryShape, withCursorRules } from "./pagination";

export const EVALUATION_TYPES = ["SSE", "SxS"] as const;
export const EVALUATION_STATUSES = ["Draft", "Running", "Ended", "Archived"] as const;
export const SHARE_ACCESS = [
  "TEAM_ONLY",
  "AUTOUSERS_LINK",
  "ANYONE_WITH_LINK",
  "PASSWORD_PROTECTED",
] as const;
export const EVALUATION_METHODS = ["manual", "ai", "both"] as const;
export const STIMULUS_TYPES = ["URL", "IMAGE", "VIDEO", "GIF"] as const;

export const EvaluationType = z.enum(EVALUATION_TYPES);
export const EvaluationStatus = z.enum(EVALUATION_STATUSES);
export type EvaluationStatus = (typeof EVALUATION_STATUSES)[number];
export const ShareAccess = z.enum(SHARE_ACCESS);

/** Share passwords are guessed from anywhere; with guesses throttled, 8 characters is the least we accept. */
export const SHARE_PASSWORD_MIN_LENGTH = 8;

const HttpUrl = z.url({ protocol: /^https?$/ }).max(2048);

/**
 * A URL the server builds from its own validated `BASE_URL`: documented as a URI, but not parsed again on every
 * response (five links on each of a list page's items were a measurable share of its CPU).
 */
const ServerUrl = z.string().meta({ format: "uri" });

export const EvaluationLinks = z
  .object({
    preview: ServerUrl,
    review: ServerUrl,
    edit: ServerUrl,
    results: ServerUrl,
    share: ServerUrl.meta({
      description: "Public review page; answers 404 while the evaluation is a Draft.",
    }),
  })
  .meta({ id: "EvaluationLinks" });

export const SelectedAutouser = z
  .object({
    autouserId: z.string().min(1).max(100),
    agentCount: z.number().int().min(1).max(50).default(1),
  })
  .strict();

/**
 * When human rating closes: at `closesAt` or once every comparison has `targetRatingsPerComparison` human ratings,
 * whichever comes first. Since API version 2026-11-25; before it, the two were the evaluation's top-level
 * `ratingDeadline` and `targetRatingsPerComparison`.
 */
export const RatingWindow = z
  .object({
    closesAt: DateTime.nullable().meta({
      description: "The human rating window closes at this instant; null for no deadline.",
    }),
    targetRatingsPerComparison: z.number().int().nullable().meta({
      description: "The window closes once every comparison has this many human ratings; null for no target.",
    }),
  })
  .meta({ id: "RatingWindow" });

export const Evaluation = z
  .object({
    id: z.string(),
    object: z.literal("evaluation"),
    teamId: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    type: EvaluationType,
    status: EvaluationStatus,
    shareAccess: ShareAccess,
    shareToken: z.string(),
    allowMultipleRatings: z.boolean(),
    evaluationMethod: z.enum(EVALUATION_METHODS),
    instructions: z.string().nullable(),
    scenario: z.string().nullable(),
    selectedDimensionIds: z.array(z.string()),
    templates: z
      .array(
        z.object({
          id: z.string(),
          name: z.string(),
          version: z.number().int(),
        }),
      )
      .meta({
        description: "The selected templates with their current versions, in selection order.",
      }),
    selectedAutousers: z.array(SelectedAutouser),
    comparisonCount: z.number().int(),
    ratingWindow: RatingWindow,
    collectRaterName: z.boolean(),
    collectRaterEmail: z.boolean(),
    endedAt: DateTime.nullable(),
    createdBy: z.string().nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
    links: EvaluationLinks,
    sharedWithYou: z.object({ permission: SharePermission }).optional().meta({
      description:
        "Present when you see this evaluation through a direct share rather than as a member of its team.",
    }),
  })
  .meta({ id: "Evaluation" });
export type Evaluation = z.infer<typeof Evaluation>;
export const EvaluationList = listOf(Evaluation, "EvaluationList");

export const DesignUrlInput = z
  .object({
    url: HttpUrl.optional(),
    fileId: z.string().min(1).max(100).optional(),
    label: z.string().max(200).optional(),
    stimulusType: z.enum(STIMULUS_TYPES).default("URL"),
  })
  .strict()
  .refine((d) => (d.url === undefined) !== (d.fileId === undefined), {
    message: "Give exactly one of `url` or `fileId`.",
    path: ["url"],
  });

export const ComparisonPairInput = z
  .object({
    currentUrl: HttpUrl.optional(),
    variantUrl: HttpUrl.optional(),
    sideAFileId: z.string().min(1).max(100).optional(),
    sideBFileId: z.string().min(1).max(100).optional(),
    label: z.string().max(200).optional(),
  })
  .strict()
  .refine((p) => p.currentUrl !== undefined || p.sideAFileId !== undefined, {
    message: "Side A needs `currentUrl` or `sideAFileId`.",
    path: ["currentUrl"],
  })
  .refine((p) => p.variantUrl !== undefined || p.sideBFileId !== undefined, {
    message: "Side B needs `variantUrl` or `sideBFileId`.",
    path: ["variantUrl"],
  });

const EvaluationFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullable(),
  shareAccess: ShareAccess,
  sharePassword: z
    .string()
    .min(SHARE_PASSWORD_MIN_LENGTH)
    .max(200)
    .meta({ description: "Required with PASSWORD_PROTECTED, at least 8 characters; stored hashed." }),
  allowMultipleRatings: z.boolean(),
  selectedDimensionIds: z.array(z.string().min(1).max(100)).min(1).max(50),
  selectedAutousers: z.array(SelectedAutouser).max(50),
  evaluationMethod: z.enum(EVALUATION_METHODS),
  instructions: z.string().max(8000).nullable(),
  scenario: z.string().max(8000).nullable(),
  ratingDeadline: z.iso
    .datetime({ offset: true })
    .nullable()
    .meta({ description: "When the human rating window closes (ISO 8601); null for no deadline." }),
  targetRatingsPerComparison: z.number().int().min(1).max(10000).nullable().meta({
    description: "Close the human rating window once every comparison has this many human ratings.",
  }),
  collectRaterName: z.boolean().meta({ description: "Ask public raters for their name." }),
  collectRaterEmail: z.boolean().meta({ description: "Ask public raters for their email." }),
};

export const EvaluationCreateInput = z
  .object({
    teamId: z.string().min(1).max(100).optional().meta({
      description: "Session callers pick a team; keys act on theirs.",
    }),
    name: EvaluationFields.name,
    description: EvaluationFields.description.optional(),
    type: EvaluationType,
    status: z.enum(["Draft", "Running"]).default("Draft"),
    shareAccess: ShareAccess.default("TEAM_ONLY"),
    sharePassword: EvaluationFields.sharePassword.optional(),
    allowMultipleRatings: z.boolean().default(false),
    designUrls: z
      .array(DesignUrlInput)
      .max(100)
      .optional()
      .meta({ description: "SSE stimuli; each becomes a comparison." }),
    comparisonPairs: z
      .array(ComparisonPairInput)
      .max(100)
      .optional()
      .meta({ description: "SxS pairs; each becomes a comparison." }),
    selectedDimensionIds: EvaluationFields.selectedDimensionIds.optional(),
    selectedAutousers: EvaluationFields.selectedAutousers.optional(),
    evaluationMethod: EvaluationFields.evaluationMethod.default("manual"),
    instructions: EvaluationFields.instructions.optional(),
    scenario: EvaluationFields.scenario.optional(),
    ratingDeadline: EvaluationFields.ratingDeadline.optional(),
    targetRatingsPerComparison: EvaluationFields.targetRatingsPerComparison.optional(),
    collectRaterName: EvaluationFields.collectRaterName.default(false),
    collectRaterEmail: EvaluationFields.collectRaterEmail.default(false),
    dryRun: z
      .boolean()
      .default(false)
      .meta({ description: "Validate and price without persisting anything." }),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.type === "SSE" && v.comparisonPairs !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["comparisonPairs"],
        message: "SSE evaluations take `designUrls`, not `comparisonPairs`.",
      });
    }
    if (v.type === "SxS" && v.designUrls !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["designUrls"],
        message: "SxS evaluations take `comparisonPairs`, not `designUrls`.",
      });
    }
    if (v.shareAccess === "PASSWORD_PROTECTED" && v.sharePassword === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["sharePassword"],
        message: "PASSWORD_PROTECTED needs a `sharePassword`.",
      });
    }
    // A password the link would not ask for would be silently ignored: the caller meant something else.
    if (v.sharePassword !== undefined && v.shareAccess !== "PASSWORD_PROTECTED") {
      ctx.addIssue({
        code: "custom",
        path: ["sharePassword"],
        message: "`sharePassword` is used only with `shareAccess: PASSWORD_PROTECTED`.",
      });
    }
  });
export type EvaluationCreateInput = z.infer<typeof EvaluationCreateInput>;

export const EvaluationUpdateInput = z
  .object({
    name: EvaluationFields.name.optional(),
    description: EvaluationFields.description.optional(),
    status: EvaluationStatus.optional(),
    shareAccess: EvaluationFields.shareAccess.optional(),
    sharePassword: EvaluationFields.sharePassword.optional(),
    allowMultipleRatings: EvaluationFields.allowMultipleRatings.optional(),
    selectedDimensionIds: EvaluationFields.selectedDimensionIds.optional(),
    selectedAutousers: EvaluationFields.selectedAutousers.optional(),
    evaluationMethod: EvaluationFields.evaluationMethod.optional(),
    instructions: EvaluationFields.instructions.optional(),
    scenario: EvaluationFields.scenario.optional(),
    ratingDeadline: EvaluationFields.ratingDeadline.optional(),
    targetRatingsPerComparison: EvaluationFields.targetRatingsPerComparison.optional(),
    collectRaterName: EvaluationFields.collectRaterName.optional(),
    collectRaterEmail: EvaluationFields.collectRaterEmail.optional(),
  })
  .strict();
export type EvaluationUpdateInput = z.infer<typeof EvaluationUpdateInput>;

export const EvaluationListQuery = withCursorRules(
  z.object({
    ...PageQueryShape,
    teamId: z.string().min(1).max(100).meta({ description: "Session callers: only this team." }).optional(),
    status: EvaluationStatus.meta({
      description: "Only evaluations in this status.",
    }).optional(),
  }),
);

export const EvaluationDryRun = z
  .object({
    object: z.literal("evaluation_dry_run"),
    dryRun: z.literal(true),
    persisted: z.literal(false),
    wouldRun: z.object({
      autouserCount: z.number().int(),
      comparisonCount: z.number().int(),
      totalRuns: z.number().int(),
    }),
    costEstimate: z.object({
      currency: z.literal("usd"),
      estimatedUsd: z.number(),
      autouserRatings: z.number().int(),
    }),
    warnings: z.array(z.string()),
  })
  .meta({ id: "EvaluationDryRun" });

export const EvaluationCreateResult = z.union([Evaluation, EvaluationDryRun]);

/** The real type of a file stimulus (read from its bytes at upload), so a viewer knows how to show it. */
const FileContentTypeOut = z.string().nullable().optional();

export const Comparison = z
  .object({
    id: z.string(),
    object: z.literal("comparison"),
    evaluationId: z.string(),
    name: z.string().nullable(),
    position: z.number().int(),
    stimulus: z
      .union([
        z.object({
          kind: z.literal("single"),
          url: z.string().nullable(),
          fileId: z.string().nullable(),
          stimulusType: z.enum(STIMULUS_TYPES),
          contentType: FileContentTypeOut,
        }),
        z.object({
          kind: z.literal("pair"),
          sideA: z.object({
            url: z.string().nullable(),
            fileId: z.string().nullable(),
            contentType: FileContentTypeOut,
          }),
          sideB: z.object({
            url: z.string().nullable(),
            fileId: z.string().nullable(),
            contentType: FileContentTypeOut,
          }),
        }),
      ])
      .meta({ id: "ComparisonStimulus" }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: "Comparison" });
export type Comparison = z.infer<typeof Comparison>;
export const ComparisonList = listOf(Comparison, "ComparisonList", true);

export const ComparisonCreateInput = z
  .object({
    name: z.string().max(200).optional(),
    url: HttpUrl.optional(),
    fileId: z.string().min(1).max(100).optional(),
    stimulusType: z.enum(STIMULUS_TYPES).optional(),
    currentUrl: HttpUrl.optional(),
    variantUrl: HttpUrl.optional(),
    sideAFileId: z.string().min(1).max(100).optional(),
    sideBFileId: z.string().min(1).max(100).optional(),
  })
  .strict();
export const ComparisonUpdateInput = ComparisonCreateInput;

export const DraftComparisonInput = ComparisonCreateInput.extend({
  id: z.string().min(1).max(100).optional().meta({
    description: "An existing comparison to keep (and change with the other fields); without it, a new one.",
  }),
}).strict();

export const EvaluationDraftInput = EvaluationUpdateInput.omit({ status: true })
  .extend({
    comparisons: z
      .array(DraftComparisonInput)
      .max(100)
      .optional()
      .meta({
        description:
          "The evaluation's comparisons as they should be, in rater order: an item with an `id` keeps that " +
          "comparison, one without adds a comparison, and a comparison left out is removed. Omit to leave them as they are.",
      }),
  })
  .strict();
export type EvaluationDraftInput = z.infer<typeof EvaluationDraftInput>;

export const EvaluationDraftEdit = z
  .object({
    object: z.literal("evaluation_draft"),
    evaluation: Evaluation,
    comparisons: z.array(Comparison).meta({ description: "Every comparison, in position order." }),
  })
  .meta({ id: "EvaluationDraftEdit" });

export const EvaluationTransferInput = z
  .object({
    teamId: z
      .string()
      .min(1)
      .max(100)
      .meta({ description: "The team the evaluation moves to; you must be its owner or an admin." }),
  })
  .strict();
export type EvaluationTransferInput = z.infer<typeof EvaluationTransferInput>;

export const EvaluationTransfer = z
  .object({
    object: z.literal("evaluation_transfer"),
    evaluation: Evaluation.meta({ description: "The evaluation, now in the target team." }),
    fromTeamId: z.string(),
    toTeamId: z.string(),
    moved: z
      .object({
        comparisons: z.number().int(),
        ratings: z.number().int(),
        files: z.number().int().meta({
          description:
            "Files the evaluation now has in the new team: moved, or copied when other evaluations of the old team also show them (the copy has a new id).",
        }),
        runs: z.number().int(),
        shares: z.number().int(),
      })
      .meta({ description: "How many of each moved with the evaluation." }),
    droppedAutouserIds: z.array(z.string()).meta({
      description:
        "Team autousers of the old team that were selected: the new team cannot run them, so they are no longer " +
        "selected (their past runs and ratings stay).",
    }),
  })
  .meta({ id: "EvaluationTransfer" });
export type EvaluationTransfer = z.infer<typeof EvaluationTransfer>;
