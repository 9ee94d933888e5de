import {
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { evaluations } from "./evaluations";
import { newestFirst } from "./list-order";
import { teams } from "./teams";

const RUN_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;

/**
 * One agent of one autouser working through an evaluation's comparisons. Workers claim queued runs (and runs
 * whose lease ran out) with `FOR UPDATE SKIP LOCKED`, hold them with a lease they extend at every heartbeat, and
 * give up on a run after `max_attempts` claims.
 */
export const autouserRuns = pgTable(
  "autouser_runs",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    evaluationId: text("evaluation_id")
      .notNull()
      .references(() => evaluations.id, { onDelete: "cascade" }),
    /** No foreign key: a run's history outlives the autouser it ran. */
    autouserId: text("autouser_id").notNull(),
    autouserType: text("autouser_type", { enum: ["system", "team"] }).notNull(),
    /** Which of the autouser's `agentCount` agents this is (0-based). */
    agentIndex: integer("agent_index").notNull().default(0),
    /** `evaluation` runs rate into the evaluation; `calibration` runs only measure agreement. */
    purpose: text("purpose", { enum: ["evaluation", "calibration"] })
      .notNull()
      .default("evaluation"),
    comparisonIds: text("comparison_ids").array().notNull(),
    status: text("status", { enum: RUN_STATUSES }).notNull().default("queued"),
    attemptCount: integer("attempt_count").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull().default(3),
    /** The claim of the worker holding the run; a write from any other claim is refused. */
    leaseToken: text("lease_token"),
    leaseUntil: timestamp("lease_until", { withTimezone: true, mode: "date" }),
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true, mode: "date" }),
    credentialSource: text("credential_source", { enum: ["byok", "platform", "heuristic"] }),
    model: text("model"),
    rubricVersion: integer("rubric_version"),
    ratingsCreated: integer("ratings_created").notNull().default(0),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    estimatedCostUsd: doublePrecision("estimated_cost_usd").notNull().default(0),
    artifactsPath: text("artifacts_path"),
    error: text("error"),
    replacesRunId: text("replaces_run_id"),
    calibrationId: text("calibration_id"),
    startedAt: timestamp("started_at", { withTimezone: true, mode: "date" }),
    completedAt: timestamp("completed_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("autouser_runs_evaluation_order_idx").on(t.evaluationId, ...newestFirst(t.updatedAt, t.id)),
    index("autouser_runs_claim_idx").on(t.status, t.createdAt),
    index("autouser_runs_calibration_idx").on(t.calibrationId),
  ],
);

/** What an agent did at each step of a run, with what it cost. */
export const autouserRunTurns = pgTable(
  "autouser_run_turns",
  {
    id: text("id").primaryKey(),
    runId: text("run_id")
      .notNull()
      .references(() => autouserRuns.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    turn: integer("turn").notNull(),
    comparisonId: text("comparison_id"),
    /** `A` or `B` on a side-by-side comparison. */
    side: text("side"),
    action: jsonb("action").$type<Record<string, unknown>>().notNull(),
    detail: text("detail").notNull().default(""),
    url: text("url"),
    /** The screenshot's name among the run's artifacts, if one was kept. */
    screenshot: text("screenshot"),
    /**
     * The file that holds the screenshot's bytes (an `artifact` file of the run's evaluation). No foreign key: the
     * file may be deleted on its own, and readers join it.
     */
    screenshotFileId: text("screenshot_file_id"),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    latencyMs: integer("latency_ms").notNull().default(0),
    costUsd: doublePrecision("cost_usd").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("autouser_run_turns_run_idx").on(t.runId, t.attempt, t.turn)],
);

/**
 * The log a watcher of an evaluation's runs reads: `seq` grows by one per evaluation, in commit order (writers
 * of one evaluation take its advisory lock), so a stream resumes after `Last-Event-ID` with nothing skipped.
 */
export const autouserRunEvents = pgTable(
  "autouser_run_events",
  {
    /** No foreign key here (the run's cascades): an insert takes no lock on the evaluation row. */
    evaluationId: text("evaluation_id").notNull(),
    seq: integer("seq").notNull(),
    runId: text("run_id")
      .notNull()
      .references(() => autouserRuns.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.evaluationId, t.seq] })],
);

/** A calibration: an autouser's run over comparisons humans rated, and how well it agreed with them. */
export const autouserCalibrations = pgTable(
  "autouser_calibrations",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    autouserId: text("autouser_id").notNull(),
    rubricId: text("rubric_id").notNull(),
    rubricVersion: integer("rubric_version").notNull(),
    evaluationId: text("evaluation_id")
      .notNull()
      .references(() => evaluations.id, { onDelete: "cascade" }),
    sampleSize: integer("sample_size").notNull(),
    status: text("status", { enum: ["running", "completed", "failed"] })
      .notNull()
      .default("running"),
    /** Alpha, bias per dimension and their bootstrap intervals, once measured. */
    figures: jsonb("figures").$type<Record<string, unknown>>(),
    error: text("error"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("autouser_calibrations_autouser_idx").on(t.autouserId, ...newestFirst(t.createdAt, t.id))],
);
