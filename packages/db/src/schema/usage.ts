import { integer, pgTable, primaryKey, smallint, text, timestamp } from "drizzle-orm/pg-core";
import { teams } from "./teams";

/**
 * Billable work per team and billing period, counted in the transaction that does the work. A metric's count is
 * the sum over its shards: shard 0 takes every count but human ratings far from the quota, which land on the
 * shard of their connection so that one team's raters do not queue on one row (packages/core usage.ts).
 */
export const usageCounters = pgTable(
  "usage_counters",
  {
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    periodStart: timestamp("period_start", { withTimezone: true, mode: "date" }).notNull(),
    metric: text("metric", { enum: ["autouser_ratings_mo", "human_ratings_mo", "evals_mo"] }).notNull(),
    shard: smallint("shard").notNull().default(0),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.periodStart, t.metric, t.shard] })],
);
