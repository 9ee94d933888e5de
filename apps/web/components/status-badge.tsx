import type { EvaluationStatus } from "@rubricon/contracts";

export function StatusBadge({ status }: { status: EvaluationStatus }) {
  return <span className={`badge badge-${status.toLowerCase()}`}>{status}</span>;
}
