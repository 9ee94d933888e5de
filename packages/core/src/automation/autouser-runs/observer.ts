/** Why a run ended, in a few fixed words (a metric label): never the message itself. */
export type RunEndReason =
  | "ok"
  | "timeout"
  | "worker_lost"
  | "judge_invalid_reply"
  | "judge_provider_auth"
  | "judge_provider_rate_limited"
  | "judge_provider_error"
  | "judge_timeout"
  | "error";

export interface RunSettled {
  runId: string;
  evaluationId: string;
  status: "completed" | "failed";
  /** `llm` or `heuristic`; `unknown` when the run ended before its judge was chosen. */
  judge: "llm" | "heuristic" | "unknown";
  reason: RunEndReason;
  /** From the claim to the settling; null for runs given up after their workers died. */
  durationMs: number | null;
}

export interface RunObserver {
  /** A turn's model use: `provider` is the team's model's provider, or `heuristic`. */
  turn(provider: string, usage: { inputTokens: number; outputTokens: number; costUsd: number }): void;
  settled(run: RunSettled): void;
}
