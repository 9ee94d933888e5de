export { createLlmPlanner } from "./agent/llm-planner";
export * from "./agent/run-comparison";
export { type AssistantTool, type StreamReplyOptions, streamAssistantReply } from "./assistant/stream-reply";
export { generateStructured } from "./assistant/structured";
export * from "./browser";
export * from "./judge";
export { createLlmJudge, type LlmJudgeOptions } from "./llm-judge/llm-judge";
export { judgeReplySchema } from "./llm-judge/reply-schema";
export { capabilitiesOf, type ModelCapabilities } from "./models/capabilities";
export { type CheckOptions, type ModelCheck, type ModelProbe, probeModel, testModel } from "./models/check";
export { languageModelFor } from "./models/language-model";
export { costOf, DEFAULT_PRICES, type ModelPrice, type PriceTable, priceOf } from "./models/prices";
export {
  classifyProviderError,
  PROVIDER_FAILURES,
  type ProviderFailure,
  type ProviderFailureCode,
} from "./models/provider-errors";
export { modelTelemetry, setModelTelemetry } from "./models/telemetry";
export { isPublicAddress, publicUrlsOnly } from "./network";
export { RUN_PHASE_CHANNEL, type RunPhase, timedPhase } from "./observability/phases";
export * from "./types";
