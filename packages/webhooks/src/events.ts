/**
 * The event types this version of the package knows. Rubricon may add types at any time; receivers must
 * answer 2xx for types they do not handle.
 */
export const EVENT_TYPES = [
  "evaluation.created",
  "evaluation.status_changed",
  "evaluation.completed",
  "autouser_run.completed",
  "autouser_run.failed",
  "rating.created",
  "calibration.frozen",
  "evaluation.transferred_out",
  "evaluation.transferred_in",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The API request that caused the event, when there was one. */
export interface EventRequest {
  id: string | null;
  idempotency_key: string | null;
}

/** The body of every delivery. Payload objects may carry more properties than are typed here. */
export interface EventEnvelope<TType extends string = string, TObject = Record<string, unknown>> {
  /**
   * `event_...`, or `event_test_...` for test deliveries. The same for every delivery of one event, so
   * dedupe on it.
   */
  id: string;
  object: "event";
  type: TType;
  /** The API version date the payload follows, such as "2026-11-01". */
  api_version: string;
  /** Unix seconds. */
  created: number;
  team_id: string;
  data: { object: TObject };
  request: EventRequest;
}

export type EvaluationType = "SSE" | "SxS";
export type EvaluationStatus = "Draft" | "Running" | "Ended" | "Archived";
export type ShareAccess = "TEAM_ONLY" | "AUTOUSERS_LINK" | "ANYONE_WITH_LINK" | "PASSWORD_PROTECTED";

export interface EvaluationLinks {
  preview: string;
  review: string;
  results: string;
}

/** An evaluation as the API shows it, with only the `preview`, `review` and `results` links. */
export interface Evaluation {
  id: string;
  object?: "evaluation";
  teamId: string;
  name: string;
  description: string | null;
  type: EvaluationType;
  status: EvaluationStatus;
  shareAccess: ShareAccess;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  updatedAt: string;
  links: EvaluationLinks;
  allowMultipleRatings?: boolean;
  evaluationMethod?: "manual" | "ai" | "both";
  instructions?: string | null;
  scenario?: string | null;
  selectedDimensionIds?: string[];
  templates?: { id: string; name: string; version: number }[];
  selectedAutousers?: { autouserId: string; agentCount: number }[];
  comparisonCount?: number;
  createdBy?: string | null;
}

export interface EvaluationStatusChange extends Evaluation {
  previous_status: EvaluationStatus;
}

export interface EvaluationSummary {
  ratingCount: number;
  autouserRatingCount: number;
  humanRatingCount: number;
  /** Null while there are too few overlapping ratings to compute agreement. */
  krippendorffAlpha: number | null;
  completedRunCount: number;
  failedRunCount: number;
}

export interface CompletedEvaluation extends Evaluation {
  summary: EvaluationSummary;
}

export interface AutouserRun {
  id: string;
  evaluationId: string;
  autouserId: string;
  status: string;
  /** ISO 8601. */
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
}

export interface FailedAutouserRun extends AutouserRun {
  error: string;
}

export interface Rating {
  id: string;
  object?: "rating";
  evaluationId: string;
  comparisonId: string;
  raterType: "user" | "public" | "autouser";
  userId: string | null;
  autouserId: string | null;
  publicRaterId: string | null;
  autouserRunId: string | null;
  /** Dimension (template) id → score. */
  dimensionRatings: Record<string, number>;
  /** Template id → the version rated. */
  templateVersions?: Record<string, number>;
  openTextResponses: Record<string, string>;
  factors: string[];
  justification: string | null;
  skipReason: string | null;
  timeSpentSeconds: number | null;
  /** ISO 8601. */
  createdAt: string;
}

export interface CalibrationFrozen {
  autouser: Record<string, unknown>;
  rubric: Record<string, unknown>;
}

/** The evaluation as it is in its new team, and the team it came from. */
export interface TransferredEvaluation extends Evaluation {
  previous_team_id: string;
}

export interface EvaluationCreatedEvent extends EventEnvelope<"evaluation.created", Evaluation> {}
export interface EvaluationStatusChangedEvent
  extends EventEnvelope<"evaluation.status_changed", EvaluationStatusChange> {}
export interface EvaluationCompletedEvent
  extends EventEnvelope<"evaluation.completed", CompletedEvaluation> {}
export interface AutouserRunCompletedEvent extends EventEnvelope<"autouser_run.completed", AutouserRun> {}
export interface AutouserRunFailedEvent extends EventEnvelope<"autouser_run.failed", FailedAutouserRun> {}
export interface RatingCreatedEvent extends EventEnvelope<"rating.created", Rating> {}
export interface CalibrationFrozenEvent extends EventEnvelope<"calibration.frozen", CalibrationFrozen> {}
export interface EvaluationTransferredOutEvent
  extends EventEnvelope<"evaluation.transferred_out", TransferredEvaluation> {}
export interface EvaluationTransferredInEvent
  extends EventEnvelope<"evaluation.transferred_in", TransferredEvaluation> {}

/**
 * Each known event type and its event, for handler maps such as
 * `{ [T in EventType]?: (event: EventTypeMap[T]) => Promise<void> }`.
 */
export interface EventTypeMap {
  "evaluation.created": EvaluationCreatedEvent;
  "evaluation.status_changed": EvaluationStatusChangedEvent;
  "evaluation.completed": EvaluationCompletedEvent;
  "autouser_run.completed": AutouserRunCompletedEvent;
  "autouser_run.failed": AutouserRunFailedEvent;
  "rating.created": RatingCreatedEvent;
  "calibration.frozen": CalibrationFrozenEvent;
  "evaluation.transferred_out": EvaluationTransferredOutEvent;
  "evaluation.transferred_in": EvaluationTransferredInEvent;
}

export type KnownEvent = EventTypeMap[EventType];

/**
 * The type of an event newer than this version of the package. At runtime it is an ordinary string. It is
 * spelled as a pattern no known type matches because TypeScript keeps a plain `string` member in every
 * `case` of a switch, which would stop `case "rating.created":` from narrowing to `RatingCreatedEvent`. To
 * test for a type this package does not list yet, compare `event.type as string`.
 */
export type UnknownEventType = `${string} (not known to this version of @rubricon/webhooks)`;

export interface UnknownEvent extends EventEnvelope<UnknownEventType, Record<string, unknown>> {}

/** What `constructEvent` returns: switch on `type`; the `default` branch receives `UnknownEvent`. */
export type RubriconEvent = KnownEvent | UnknownEvent;
