import { z } from "zod";
import { Comparison, EvaluationStatus, EvaluationType, ShareAccess } from "./evaluations";

/** What the public share page needs to show an evaluation to a rater, and whether they may rate yet. */
export const ShareView = z
  .object({
    object: z.literal("share"),
    evaluation: z.object({
      id: z.string(),
      name: z.string().nullable().meta({ description: "Null behind a password not yet given." }),
      description: z.string().nullable(),
      instructions: z.string().nullable(),
      scenario: z.string().nullable(),
      type: EvaluationType,
      status: EvaluationStatus,
      shareAccess: ShareAccess,
      teamName: z.string(),
    }),
    access: z.object({
      state: z.enum([
        "ready",
        "start",
        "sign_in_required",
        "not_a_member",
        "autousers_only",
        "ended",
        "excluded",
      ]),
      /** What the start form asks for when `state` is `start`. */
      start: z.object({ password: z.boolean(), name: z.boolean(), email: z.boolean() }),
      rater: z
        .object({ kind: z.enum(["user", "public"]), id: z.string(), name: z.string().nullable() })
        .nullable(),
    }),
    comparisons: z.array(Comparison),
    templates: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        version: z.number().int(),
        scaleMin: z.number().int(),
        scaleMax: z.number().int(),
        question: z.string().nullable(),
        labels: z.array(z.string().nullable()).nullable(),
        guidelines: z.string().nullable(),
      }),
    ),
    ratedComparisonIds: z.array(z.string()),
  })
  .meta({ id: "ShareView" });
export type ShareView = z.infer<typeof ShareView>;

export const ShareStartInput = z
  .object({
    password: z.string().min(1).max(200).optional(),
    name: z.string().trim().min(1).max(200).optional(),
    email: z.email().max(320).optional(),
  })
  .strict();
export type ShareStartInput = z.infer<typeof ShareStartInput>;
