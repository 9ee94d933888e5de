import { generateText, NoObjectGeneratedError, Output } from "ai";
import { z } from "zod";
import { languageModelFor } from "../models/language-model";
import { costOf } from "../models/prices";
import { classifyProviderError, type ProviderFailureCode } from "../models/provider-errors";
import { modelTelemetry } from "../models/telemetry";
import { type AgentAction, JudgeError, type ModelConfig } from "../types";
import type { ActionPlanner, PlannerInput } from "./run-comparison";

const ActionReply = z.object({
  action: z.enum(["scroll", "click", "type", "done"]),
  /** The accessible name of the element to click or type into. */
  name: z.string().max(200).optional(),
  role: z.string().max(40).optional(),
  text: z.string().max(500).optional(),
  direction: z.enum(["down", "up"]).optional(),
  reason: z.string().max(500).optional(),
});

function toAction(reply: z.infer<typeof ActionReply>): AgentAction {
  switch (reply.action) {
    case "scroll":
      return { type: "scroll", direction: reply.direction ?? "down" };
    case "click":
      return reply.name
        ? { type: "click", name: reply.name, role: reply.role }
        : { type: "done", reason: "no element named" };
    case "type":
      return reply.name
        ? { type: "type", name: reply.name, text: reply.text ?? "" }
        : { type: "done", reason: "no field named" };
    default:
      return { type: "done", reason: reply.reason };
  }
}

function prompt(input: PlannerInput): string {
  const p = input.persona;
  return [
    `You are ${p.name}, ${p.role}. ${p.description}`,
    p.goals.length ? `Your goals: ${p.goals.join("; ")}.` : "",
    input.scenario ? `Scenario: ${input.scenario}` : "",
    input.instructions ? `Instructions: ${input.instructions}` : "",
    `You are looking at ${input.capture.finalUrl} ("${input.capture.title}").`,
    `Accessibility tree (cut):\n${input.capture.accessibilityTree.slice(0, 4000)}`,
    input.history.length
      ? `So far you did: ${input.history.join(" | ")}`
      : "You have not acted on this page yet.",
    `You have ${input.turnsLeft} actions left. Choose one: scroll, click or type into an element by its accessible name, or done when you have seen enough to judge the page.`,
  ]
    .filter(Boolean)
    .join("\n\n");
}

/** A planner that asks the team's model for the persona's next step, as structured output. */
export function createLlmPlanner(config: ModelConfig, options: { timeoutMs?: number } = {}): ActionPlanner {
  const model = languageModelFor(config);
  return {
    async next(input, { signal }) {
      const deadline = AbortSignal.timeout(options.timeoutMs ?? 60_000);
      const abortSignal = signal ? AbortSignal.any([signal, deadline]) : deadline;
      try {
        const result = await generateText({
          experimental_telemetry: modelTelemetry("autouser.plan"),
          model,
          prompt: prompt(input),
          output: Output.object({ schema: ActionReply, name: "action", description: "The next step" }),
          maxOutputTokens: 300,
          maxRetries: 0,
          abortSignal,
        });
        const spent = {
          inputTokens: result.usage.inputTokens ?? 0,
          outputTokens: result.usage.outputTokens ?? 0,
        };
        return {
          action: toAction(result.output),
          usage: { ...spent, costUsd: costOf(spent, config.provider, config.model) },
        };
      } catch (error) {
        if (NoObjectGeneratedError.isInstance(error)) {
          // A reply the agent cannot act on ends the exploration; the judge still rates what was seen.
          const spent = {
            inputTokens: error.usage?.inputTokens ?? 0,
            outputTokens: error.usage?.outputTokens ?? 0,
          };
          return {
            action: { type: "done", reason: "the model's reply was not an action" },
            usage: { ...spent, costUsd: costOf(spent, config.provider, config.model) },
          };
        }
        const failure = classifyProviderError(error, { timedOut: deadline.aborted });
        throw new JudgeError(mapCode(failure.code), failure.message, failure.retryAfterSeconds);
      }
    },
  };
}

function mapCode(code: ProviderFailureCode): JudgeError["code"] {
  if (
    code === "timeout" ||
    code === "provider_auth" ||
    code === "provider_rate_limited" ||
    code === "invalid_reply"
  ) {
    return code;
  }
  return "provider_error";
}
