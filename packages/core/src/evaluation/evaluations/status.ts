import { canTransition, EVALUATION_STATUS_TRANSITIONS, type EvaluationStatus } from "@rubricon/contracts";
import { ApiError } from "../../kernel";

export function assertTransition(from: EvaluationStatus, to: EvaluationStatus): void {
  if (!canTransition(from, to)) {
    const allowed = EVALUATION_STATUS_TRANSITIONS[from];
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
