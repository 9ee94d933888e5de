import { generateText, NoObjectGeneratedError, Output } from "ai";
import { capabilitiesOf } from "../models/capabilities";
import { languageModelFor } from "../models/language-model";
import { costOf, type PriceTable } from "../models/prices";
import { classifyProviderError, type ProviderFailureCode } from "../models/provider-errors";
import { modelTelemetry } from "../models/telemetry";
import {
  type Judge,
  JudgeError,
  type JudgeInput,
  type JudgeResult,
  type ModelConfig,
  type TokenUsage,
} from "../types";
import { signalFacts, systemPrompt, userContent } from "./prompt";
import { judgeReplySchema } from "./reply-schema";

export interface LlmJudgeOptions {
  /** Per attempt; a provider that has not answered by then fails the rating with `timeout`. Default 90 s. */
  timeoutMs?: number;
  /** Prices that replace the defaults of `DEFAULT_PRICES` for the models they name. */
  prices?: PriceTable;
  /** Whether to send screenshots; by default the capability table decides (a probe's answer can override it). */
  imageInput?: boolean;
  /** Upper bound on the reply's tokens. Default 1500. */
  maxOutputTokens?: number;
  /** Characters of visible text and of the accessibility tree sent per page. Default 8000. */
  textLimit?: number;
}

/** Attempts per rating: the first, and one more after a reply outside the schema. */
const ATTEMPTS = 2;

const JUDGE_CODES: Record<ProviderFailureCode, JudgeError["code"]> = {
  provider_auth: "provider_auth",
  provider_rate_limited: "provider_rate_limited",
  model_not_found: "provider_error",
  provider_unreachable: "provider_error",
  provider_error: "provider_error",
  timeout: "timeout",
  invalid_reply: "invalid_reply",
};

/**
 * A judge backed by a language model: the persona, the evaluation's instructions and scenario, the templates
 * and each page (measured signals, visible text, accessibility tree, and the screenshot when the model takes
 * images) go in; one integer per template within its scale and a justification come back as structured output.
 * A reply outside the schema is asked for once more, with what was wrong; a second bad reply is `invalid_reply`.
 */
export function createLlmJudge(config: ModelConfig, options: LlmJudgeOptions = {}): Judge {
  const model = languageModelFor(config);
  const images = options.imageInput ?? capabilitiesOf(config.provider, config.model).imageInput;
  const label = `${config.provider}/${config.model}`;

  return {
    kind: "llm",
    async rate(input: JudgeInput, rateOptions: { signal?: AbortSignal } = {}): Promise<JudgeResult> {
      const schema = judgeReplySchema(input);
      const system = systemPrompt(input);
      const content = userContent(input, { images, textLimit: options.textLimit ?? 8000 });
      const spent = { inputTokens: 0, outputTokens: 0 };
      const usage = (): TokenUsage => ({
        ...spent,
        costUsd: costOf(spent, config.provider, config.model, options.prices),
      });
      let correction: string | null = null;

      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        const deadline = AbortSignal.timeout(options.timeoutMs ?? 90_000);
        const abortSignal = rateOptions.signal ? AbortSignal.any([rateOptions.signal, deadline]) : deadline;
        try {
          const result = await generateText({
            experimental_telemetry: modelTelemetry("autouser.judge"),
            model,
            system,
            messages: [
              {
                role: "user",
                content: correction ? [...content, { type: "text", text: correction }] : content,
              },
            ],
            output: Output.object({
              schema,
              name: "rating",
              description: "Ratings per template and a justification",
            }),
            maxOutputTokens: options.maxOutputTokens ?? 1500,
            // Retries are the caller's: a rate limit comes back with its wait, not slept on here.
            maxRetries: 0,
            abortSignal,
          });
          spent.inputTokens += result.usage.inputTokens ?? 0;
          spent.outputTokens += result.usage.outputTokens ?? 0;
          const reply = result.output;
          const ratings: Record<string, number> = {};
          for (const template of input.templates) ratings[template.id] = reply.ratings[template.id] as number;
          const captures =
            input.task.type === "SSE" ? [input.task.capture] : [input.task.sideA, input.task.sideB];
          return {
            ratings,
            justification: reply.justification,
            judge: "llm",
            model: label,
            usage: usage(),
            evidence: captures.flatMap((capture, index) =>
              signalFacts(capture.signals).map((fact) =>
                captures.length > 1 ? `${index === 0 ? "A" : "B"}: ${fact}` : fact,
              ),
            ),
          };
        } catch (error) {
          if (NoObjectGeneratedError.isInstance(error)) {
            spent.inputTokens += error.usage?.inputTokens ?? 0;
            spent.outputTokens += error.usage?.outputTokens ?? 0;
            correction =
              "Your previous reply could not be used: it was not JSON matching the required shape, or a rating was " +
              "not a whole number within its template's scale. Reply again with JSON only, one integer within the " +
              "stated scale for every template id, and a justification.";
            continue;
          }
          if (rateOptions.signal?.aborted) {
            throw new JudgeError(
              "timeout",
              "The rating was cancelled before the provider answered.",
              null,
              usage(),
            );
          }
          const failure = classifyProviderError(error, { timedOut: deadline.aborted });
          throw new JudgeError(
            JUDGE_CODES[failure.code],
            failure.message,
            failure.retryAfterSeconds,
            usage(),
          );
        }
      }
      throw new JudgeError(
        "invalid_reply",
        `The model's reply did not match the rating schema in ${ATTEMPTS} attempts.`,
        null,
        usage(),
      );
    },
  };
}
