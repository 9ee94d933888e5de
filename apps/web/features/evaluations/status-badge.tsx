import type { EvaluationStatus } from "@rubricon/contracts";
import { Badge, type Tone } from "@/ui";

const STATUS_TONE: Record<EvaluationStatus, Tone> = {
  Draft: "neutral",
  Running: "success",
  Ended: "info",
  Archived: "muted",
};

export function StatusBadge({ status }: { status: EvaluationStatus }) {
  return <Badge tone={STATUS_TONE[status]}>{status}</Badge>;
}
