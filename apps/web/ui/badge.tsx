import type { ReactNode } from "react";

export type Tone = "neutral" | "success" | "info" | "muted" | "warning" | "danger" | "system";

const TONE_CLASS: Record<Tone, string> = {
  neutral: "",
  success: "badge-running",
  info: "badge-ended",
  muted: "badge-archived",
  warning: "badge-warning",
  danger: "badge-danger",
  system: "badge-system",
};

/** A short status word in a pill. */
export function Badge({ tone = "neutral", children }: { tone?: Tone; children: ReactNode }) {
  return <span className={`badge ${TONE_CLASS[tone]}`.trim()}>{children}</span>;
}
