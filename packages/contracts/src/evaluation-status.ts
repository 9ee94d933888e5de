import type { EvaluationStatus } from "./evaluations";

type Transitions = Readonly<Record<EvaluationStatus, readonly EvaluationStatus[]>>;

/**
 * The moves an evaluation's status may make: Draft→Running, Running→Ended, and any live state→Archived.
 * Archived is final. The API enforces it; the dashboard offers exactly these moves.
 */
export const EVALUATION_STATUS_TRANSITIONS: Transitions = {
  Draft: ["Running", "Archived"],
  Running: ["Ended", "Archived"],
  Ended: ["Archived"],
  Archived: [],
};

export function canTransition(from: EvaluationStatus, to: EvaluationStatus): boolean {
  return EVALUATION_STATUS_TRANSITIONS[from].includes(to);
}
