import { integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { teams } from "./teams";

/** Billable work per team and billing period, counted in the transaction that does the work. */
export const usageCounters = pgTable(
  "usage_counters",
  {
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    periodStart: timestamp("period_start", { withTimezone: true, mode: "date" }).notNull(),
    metric: text("metric", { enum: ["autouser_ratings_mo", "human_ratings_mo", "evals_mo"] }).notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.periodStart, t.metric] })],
);
