import type { EvaluationStatus } from "@rubricon/contracts";
import { ApiError } from "../shared/errors";

/** Allowed moves: Draft→Running, Running→Ended, and any live state→Archived. Archived is final. */
const TRANSITIONS: Record<EvaluationStatus, readonly EvaluationStatus[]> = {
  Draft: ["Running", "Archived"],
  Running: ["Ended", "Archived"],
  Ended: ["Archived"],
  Archived: [],
};

export function assertTransition(from: EvaluationStatus, to: EvaluationStatus): void {
  if (!TRANSITIONS[from].includes(to)) {
    const allowed = TRANSITIONS[from];
    throw ApiError.invalid(
      "status",
      `An evaluation cannot move from ${from} to ${to}.${allowed.length ? ` From ${from} it can move to ${allowed.join(" or ")}.` : ` ${from} is final.`}`,
      "illegal_status_transition",
    );
  }
}

/** Ended and Archived evaluations are read-only except for archiving. */
export function isEditable(status: EvaluationStatus): boolean {
  return status === "Draft" || status === "Running";
}
