import { z } from "zod";
import type { JudgeInput, JudgeTemplate } from "../types";

export const SXS_MIN = -3;
export const SXS_MAX = 3;

/** The integer range a template is rated on for this task: its own scale for SSE, -3..+3 for SxS. */
export function scaleOf(
  template: JudgeTemplate,
  type: JudgeInput["task"]["type"],
): { min: number; max: number } {
  return type === "SxS" ? { min: SXS_MIN, max: SXS_MAX } : { min: template.scaleMin, max: template.scaleMax };
}

/**
 * The reply a model must give: one integer per template, within that template's scale, and a justification.
 * The same schema is sent to the provider (structured output) and validates what comes back.
 */
export function judgeReplySchema(input: JudgeInput) {
  if (input.templates.length === 0) throw new Error("A judge needs at least one template to rate.");
  const ratings: Record<string, z.ZodNumber> = {};
  for (const template of input.templates) {
    const { min, max } = scaleOf(template, input.task.type);
    if (!Number.isInteger(min) || !Number.isInteger(max) || min >= max) {
      throw new Error(`Template ${template.id} has no usable scale (${min}..${max}).`);
    }
    ratings[template.id] = z
      .number()
      .int()
      .min(min)
      .max(max)
      .describe(`${template.name}: an integer from ${min} to ${max}`);
  }
  return z.object({
    ratings: z.object(ratings).strict(),
    justification: z
      .string()
      .min(1)
      .max(4000)
      .describe("Why these ratings, in the persona's voice, citing what was seen"),
  });
}

export type JudgeReply = z.infer<ReturnType<typeof judgeReplySchema>>;
