import { z } from "zod";
import { DateTime } from "./common";
import { type Plan, PlanSchema } from "./teams";

/** Monthly quotas, named as the contract's Usage object names them. */
export const QUOTA_METRICS = ["autouser_ratings_mo", "human_ratings_mo", "evals_mo"] as const;
export type QuotaMetric = (typeof QUOTA_METRICS)[number];

/**
 * Stands for "no limit" where the contract asks for an integer (`limits` and `remaining` of Usage). Inside the
 * service an unlimited quota is `null`; only the wire shows -1.
 */
export const UNLIMITED = -1;

export interface PlanLimits {
  rpm: number;
  /** null: unlimited. */
  autouser_ratings_mo: number | null;
  human_ratings_mo: number | null;
  evals_mo: number | null;
}

/**
 * The contract's Limits table. Enterprise limits are set per team by an operator (`admin set-limits`); until
 * then an Enterprise team has Pro's.
 */
export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { rpm: 60, autouser_ratings_mo: 50, human_ratings_mo: 250, evals_mo: 5 },
  team: { rpm: 120, autouser_ratings_mo: 500, human_ratings_mo: 5000, evals_mo: 100 },
  pro: { rpm: 600, autouser_ratings_mo: 2000, human_ratings_mo: 20000, evals_mo: null },
  enterprise: { rpm: 600, autouser_ratings_mo: 2000, human_ratings_mo: 20000, evals_mo: null },
  self_hosted: { rpm: 600, autouser_ratings_mo: null, human_ratings_mo: null, evals_mo: null },
};

/** Plans a team owner can switch between without an operator; Enterprise is arranged with us. */
export const SELF_SERVICE_PLANS = ["free", "team", "pro"] as const satisfies readonly Plan[];

const Quota = z.number().int().min(UNLIMITED).meta({ description: "-1 means unlimited." });
const Used = z.number().int().min(0);

export const Usage = z
  .object({
    object: z.literal("usage"),
    teamId: z.string(),
    plan: PlanSchema,
    period: z
      .object({ start: DateTime, end: DateTime })
      .meta({ description: "The billing period: the calendar month (UTC) holding now; `end` is exclusive." }),
    limits: z.object({
      rpm: z.number().int().min(0).meta({ description: "Requests per minute, a sliding one-minute window." }),
      autouser_ratings_mo: Quota,
      human_ratings_mo: Quota,
      evals_mo: Quota,
    }),
    used: z.object({ autouser_ratings_mo: Used, human_ratings_mo: Used, evals_mo: Used }),
    remaining: z.object({ autouser_ratings_mo: Quota, human_ratings_mo: Quota, evals_mo: Quota }),
  })
  .meta({ id: "Usage" });
export type Usage = z.infer<typeof Usage>;

export const UsageQuery = z
  .object({
    teamId: z.string().optional().meta({
      description: "Team to report on; default: the credential's team (for users, the personal team).",
    }),
  })
  .strict();

export const PlanChangeInput = z
  .object({
    plan: PlanSchema.meta({ description: "free, team or pro; Enterprise is set up by an operator." }),
  })
  .strict();
export type PlanChangeInput = z.infer<typeof PlanChangeInput>;
