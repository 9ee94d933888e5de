import {
  bigint,
  doublePrecision,
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

/**
 * New ratings waiting to be folded into their evaluation's stored tally. A statement-level trigger on `ratings`
 * (migration 0020) queues every inserted rating, whatever inserted it (the API, autousers, SQL); a fold deletes the
 * rows it folds in the statement that reads their ratings, so each rating is folded once.
 */
export const ratingTallyPending = pgTable(
  "rating_tally_pending",
  {
    evaluationId: text("evaluation_id").notNull(),
    ratingId: text("rating_id").notNull(),
    queuedAt: timestamp("queued_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.evaluationId, t.ratingId] })],
);

/**
 * An evaluation's stored tally: the templates it was built for and the evaluation's `ratingChanges` it was built at.
 * Another value of either means the tally is rebuilt from every rating.
 */
export const ratingTallies = pgTable("rating_tallies", {
  evaluationId: text("evaluation_id")
    .primaryKey()
    .references(() => evaluations.id, { onDelete: "cascade" }),
  templateIds: text("template_ids").array().notNull(),
  ratingChanges: integer("rating_changes").notNull(),
  builtAt: timestamp("built_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  foldedAt: timestamp("folded_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/**
 * The stored tally's rows, the parts `loadStatsTally` aggregates, each mergeable: counts and sums add, the first
 * rating is the least (`first_at`, `first_id`). `part` c: per comparison; u: per template (`idx`, 1-based),
 * comparison, kind (`rater_type` human or autouser) and value; r: per rater; d: per rater and template. Key columns
 * a part does not use hold '' or 0; a rater without an id (their user deleted) is `rater_id` ''.
 */
export const ratingTallyRows = pgTable(
  "rating_tally_rows",
  {
    evaluationId: text("evaluation_id")
      .notNull()
      .references(() => evaluations.id, { onDelete: "cascade" }),
    part: text("part").notNull(),
    idx: integer("idx").notNull(),
    comparisonId: text("comparison_id").notNull(),
    raterType: text("rater_type").notNull(),
    raterId: text("rater_id").notNull(),
    value: doublePrecision("value").notNull(),
    n: bigint("n", { mode: "number" }).notNull(),
    skipped: bigint("skipped", { mode: "number" }).notNull(),
    valued: bigint("valued", { mode: "number" }).notNull(),
    sum: doublePrecision("sum").notNull(),
    firstAt: timestamp("first_at", { withTimezone: true, mode: "date" }),
    firstId: text("first_id"),
  },
  (t) => [
    primaryKey({
      name: "rating_tally_rows_pk",
      columns: [t.evaluationId, t.part, t.idx, t.comparisonId, t.raterType, t.raterId, t.value],
    }),
  ],
);
