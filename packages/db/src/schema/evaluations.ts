import { boolean, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { newestFirst } from "./list-order";
import { teams } from "./teams";
import { users } from "./users";

export type SelectedAutouserRow = { autouserId: string; agentCount: number };
export type StimulusSideRow = { url: string | null; fileId: string | null; contentType?: string | null };
export type StimulusRow =
  | {
      kind: "single";
      url: string | null;
      fileId: string | null;
      stimulusType: "URL" | "IMAGE" | "VIDEO" | "GIF";
      /** The file's real type, read from its bytes, when the stimulus is a file. */
      contentType?: string | null;
    }
  | {
      kind: "pair";
      sideA: StimulusSideRow;
      sideB: StimulusSideRow;
    };

export const evaluations = pgTable(
  "evaluations",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    createdBy: text("created_by").references(() => users.id, {
      onDelete: "set null",
    }),
    name: text("name").notNull(),
    description: text("description"),
    type: text("type", { enum: ["SSE", "SxS"] }).notNull(),
    status: text("status", {
      enum: ["Draft", "Running", "Ended", "Archived"],
    }).notNull(),
    shareAccess: text("share_access", {
      enum: ["TEAM_ONLY", "AUTOUSERS_LINK", "ANYONE_WITH_LINK", "PASSWORD_PROTECTED"],
    }).notNull(),
    shareToken: text("share_token").notNull().unique(),
    sharePasswordHash: text("share_password_hash"),
    /** Bumped when the share password changes or the token is rotated: public raters started before must start again. */
    shareAccessVersion: integer("share_access_version").notNull().default(1),
    allowMultipleRatings: boolean("allow_multiple_ratings").notNull().default(false),
    evaluationMethod: text("evaluation_method", {
      enum: ["manual", "ai", "both"],
    })
      .notNull()
      .default("manual"),
    instructions: text("instructions"),
    scenario: text("scenario"),
    selectedDimensionIds: text("selected_dimension_ids").array().notNull(),
    selectedAutousers: jsonb("selected_autousers").$type<SelectedAutouserRow[]>().notNull().default([]),
    /** The human rating window closes at this instant, or once every comparison has the target count. */
    ratingDeadline: timestamp("rating_deadline", { withTimezone: true, mode: "date" }),
    targetRatingsPerComparison: integer("target_ratings_per_comparison"),
    collectRaterName: boolean("collect_rater_name").notNull().default(false),
    collectRaterEmail: boolean("collect_rater_email").notNull().default(false),
    /** Bumped with every change to the evaluation's ratings; cached statistics of an older revision are stale. */
    ratingsRevision: integer("ratings_revision").notNull().default(0),
    /**
     * Bumped by triggers (migration 0020) whenever ratings already stored change: deleted, their rater, comparison,
     * values or skip changed, or a public rater's exclusion set or lifted. New ratings never bump it (they queue in
     * `rating_tally_pending`), so a stored tally (`rating_tallies`) built at this value only misses queued ratings.
     */
    ratingChanges: integer("rating_changes").notNull().default(0),
    endedAt: timestamp("ended_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("evaluations_team_order_idx").on(t.teamId, ...newestFirst(t.updatedAt, t.id)),
    index("evaluations_team_status_order_idx").on(t.teamId, t.status, ...newestFirst(t.updatedAt, t.id)),
  ],
);

export const comparisons = pgTable(
  "comparisons",
  {
    id: text("id").primaryKey(),
    evaluationId: text("evaluation_id")
      .notNull()
      .references(() => evaluations.id, { onDelete: "cascade" }),
    name: text("name"),
    position: integer("position").notNull(),
    stimulus: jsonb("stimulus").$type<StimulusRow>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("comparisons_evaluation_idx").on(t.evaluationId, ...newestFirst(t.updatedAt, t.id))],
);
