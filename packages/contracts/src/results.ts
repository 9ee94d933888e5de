import { z } from "zod";
import { DateTime } from "./common";
import { EvaluationStatus, EvaluationType } from "./evaluations";
import { RaterType } from "./ratings";

export const ALPHA_METRICS = ["nominal", "ordinal", "interval", "ratio"] as const;
export const AlphaMetric = z.enum(ALPHA_METRICS);
export type AlphaMetric = (typeof ALPHA_METRICS)[number];

const Interval = z
  .object({ lower: z.number(), upper: z.number() })
  .nullable()
  .meta({ description: "95% interval; null when there are too few values to estimate one." });

const ScaleInterval = z
  .object({
    lower: z.number(),
    upper: z.number(),
    clipped: z.boolean().meta({
      description:
        "True when the t-interval ran past an end of the scale and was cut to it: too few or too spread ratings for a narrower interval.",
    }),
  })
  .nullable()
  .meta({
    description:
      "95% interval of the mean (Student's t), always within the scale; null (withheld) below two scores.",
  });

const SseDimensionResult = z.object({
  kind: z.literal("sse"),
  templateId: z.string(),
  name: z.string(),
  version: z.number().int(),
  scaleMin: z.number().int(),
  scaleMax: z.number().int(),
  n: z.number().int().meta({ description: "Scores counted (skipped ratings excluded)." }),
  distribution: z.record(z.string(), z.number().int()).meta({ description: "Count per scale point." }),
  mean: z.number().nullable(),
  stdDev: z.number().nullable().meta({ description: "Sample standard deviation." }),
  ci95: ScaleInterval,
});

const SxsDimensionResult = z.object({
  kind: z.literal("sxs"),
  templateId: z.string(),
  name: z.string(),
  version: z.number().int(),
  n: z.number().int(),
  distribution: z
    .record(z.string(), z.number().int())
    .meta({ description: "Count per preference, -3 to +3." }),
  sideAWins: z.number().int(),
  sideBWins: z.number().int(),
  ties: z.number().int(),
  meanPreference: z.number().nullable().meta({ description: "Negative favours side A, positive side B." }),
  ci95: ScaleInterval,
  winner: z.enum(["A", "B", "inconclusive"]).meta({
    description: "The side whose 95% interval of the mean preference excludes 0; otherwise inconclusive.",
  }),
});

const CellSummary = z.object({ n: z.number().int(), mean: z.number().nullable() });

export const AlphaStat = z
  .object({
    alpha: z.number().nullable().meta({ description: "Krippendorff's alpha; null when undefined." }),
    metric: AlphaMetric,
    raters: z.number().int(),
    units: z.number().int().meta({ description: "Units (comparison and template) with two or more values." }),
    values: z.number().int().meta({ description: "Pairable values." }),
    ci95: Interval,
    undefinedReason: z
      .enum(["no_pairable_values", "no_variation"])
      .nullable()
      .meta({ description: "Why alpha is undefined: too few values, or every value the same." }),
  })
  .meta({ id: "AlphaStat" });
export type AlphaStat = z.infer<typeof AlphaStat>;

const DimensionAlpha = AlphaStat.extend({ templateId: z.string(), name: z.string() });

const AgreementGroup = z.object({
  overall: AlphaStat,
  dimensions: z.array(DimensionAlpha),
});

export const EvaluationAgreement = z
  .object({
    object: z.literal("evaluation_agreement"),
    evaluationId: z.string(),
    computedAt: DateTime,
    ...AgreementGroup.shape,
    groups: z.object({
      humans: AgreementGroup,
      autousers: AgreementGroup,
      humansVsAutousers: AgreementGroup.meta({
        description: "Two raters per unit: the humans' median and the autousers' median.",
      }),
    }),
    bootstrap: z.object({ samples: z.number().int(), seed: z.number().int() }),
  })
  .meta({ id: "EvaluationAgreement" });
export type EvaluationAgreement = z.infer<typeof EvaluationAgreement>;

export const AgreementQuery = z.object({
  id: z.string(),
  metric: AlphaMetric.meta({
    description: "Distance metric; default ordinal for SSE scales and interval for SxS preferences.",
  }).optional(),
});

export const EvaluationResults = z
  .object({
    object: z.literal("evaluation_results"),
    evaluationId: z.string(),
    type: EvaluationType,
    status: EvaluationStatus,
    computedAt: DateTime,
    ratingCount: z.number().int(),
    humanRatingCount: z.number().int(),
    autouserRatingCount: z.number().int(),
    excludedCount: z.number().int().meta({ description: "Skipped ratings, left out of every statistic." }),
    dimensions: z.array(z.discriminatedUnion("kind", [SseDimensionResult, SxsDimensionResult])),
    perComparison: z.array(
      z.object({
        comparisonId: z.string(),
        name: z.string().nullable(),
        position: z.number().int(),
        ratingCount: z.number().int(),
        excludedCount: z.number().int(),
        dimensions: z.record(z.string(), CellSummary),
      }),
    ),
    perRater: z.array(
      z.object({
        raterType: RaterType,
        raterId: z.string().nullable(),
        ratingCount: z.number().int(),
        excludedCount: z.number().int(),
        dimensions: z.record(z.string(), CellSummary),
      }),
    ),
    agreement: AlphaStat.meta({
      description: "Overall agreement of all raters; see /agreement for the detail.",
    }),
  })
  .meta({ id: "EvaluationResults" });
export type EvaluationResults = z.infer<typeof EvaluationResults>;

export const ExportQuery = z.object({
  id: z.string(),
  format: z.enum(["json", "csv", "md"]).default("json").meta({
    description: "`json` the ratings, `csv` one row per rating and template, `md` a readable report.",
  }),
});
