import {
  bigint,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { comparisons, evaluations } from "./evaluations";
import { newestFirst } from "./list-order";
import { users } from "./users";

/** A person rating through an evaluation's share link, without an account. */
export const publicRaters = pgTable(
  "public_raters",
  {
    id: text("id").primaryKey(),
    evaluationId: text("evaluation_id")
      .notNull()
      .references(() => evaluations.id, { onDelete: "cascade" }),
    name: text("name"),
    email: text("email"),
    /** sha256 of the rater's cookie token; the token itself is never stored. */
    tokenHash: text("token_hash").notNull().unique(),
    /** The evaluation's `shareAccessVersion` when the rater started; an older one no longer rates. */
    accessVersion: integer("access_version").notNull().default(1),
    /** Set when the evaluation's owners excluded the rater: no more ratings, and theirs leave the results. */
    excludedAt: timestamp("excluded_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("public_raters_evaluation_idx").on(t.evaluationId, ...newestFirst(t.updatedAt, t.id))],
);

export const ratings = pgTable(
  "ratings",
  {
    id: text("id").primaryKey(),
    evaluationId: text("evaluation_id")
      .notNull()
      .references(() => evaluations.id, { onDelete: "cascade" }),
    comparisonId: text("comparison_id")
      .notNull()
      .references(() => comparisons.id, { onDelete: "cascade" }),
    teamId: text("team_id").notNull(),
    raterType: text("rater_type", { enum: ["user", "public", "autouser"] }).notNull(),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    publicRaterId: text("public_rater_id").references(() => publicRaters.id, { onDelete: "set null" }),
    autouserId: text("autouser_id"),
    autouserRunId: text("autouser_run_id"),
    /** The version of the autouser's rubric an autouser rating was made with. */
    rubricVersion: integer("rubric_version"),
    /**
     * Who rated, as one string (`usr_...`, `prt_...`, `auto_...`), set only while the evaluation allows one rating
     * per rater and comparison: the unique index then refuses a second one even under concurrent submits.
     */
    singleRaterKey: text("single_rater_key"),
    dimensionRatings: jsonb("dimension_ratings").$type<Record<string, number>>().notNull(),
    /** The version of each rated template at the time of rating. */
    templateVersions: jsonb("template_versions").$type<Record<string, number>>().notNull(),
    openTextResponses: jsonb("open_text_responses").$type<Record<string, string>>().notNull(),
    factors: jsonb("factors").$type<string[]>().notNull(),
    justification: text("justification"),
    skipReason: text("skip_reason"),
    timeSpentSeconds: integer("time_spent_seconds"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("ratings_evaluation_order_idx").on(t.evaluationId, ...newestFirst(t.updatedAt, t.id)),
    index("ratings_evaluation_rater_type_order_idx").on(
      t.evaluationId,
      t.raterType,
      ...newestFirst(t.updatedAt, t.id),
    ),
    // Also the list filtered by comparison (with or without a rater type: a comparison's ratings are few).
    index("ratings_comparison_order_idx").on(t.comparisonId, ...newestFirst(t.updatedAt, t.id)),
    uniqueIndex("ratings_single_rater_uq").on(t.comparisonId, t.singleRaterKey),
  ],
);

/**
 * How many times ratings were added to an evaluation, split over shards so that concurrent raters of one evaluation
 * do not queue on one counter row (each connection counts on its own shard). The sum over an evaluation's shards
 * only grows, so it tells cached results apart exactly; the evaluation's own `ratingsRevision` still counts the
 * rarer changes (deletes, excluded raters).
 */
export const evaluationRatingRevisions = pgTable(
  "evaluation_rating_revisions",
  {
    evaluationId: text("evaluation_id")
      .notNull()
      .references(() => evaluations.id, { onDelete: "cascade" }),
    shard: smallint("shard").notNull(),
    revision: bigint("revision", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.evaluationId, t.shard] })],
);

/**
 * Computed results and agreement per evaluation and kind, valid while `fingerprint` matches what they were
 * computed from (the evaluation's ratings revision, its last update and its templates' versions).
 */
export const evaluationStats = pgTable(
  "evaluation_stats",
  {
    evaluationId: text("evaluation_id")
      .notNull()
      .references(() => evaluations.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    fingerprint: text("fingerprint").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    computedAt: timestamp("computed_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("evaluation_stats_pk").on(t.evaluationId, t.kind)],
);
