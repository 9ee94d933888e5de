import { index, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { newestFirst } from "./list-order";
import { users } from "./users";

export const teams = pgTable("teams", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  description: text("description"),
  plan: text("plan", { enum: ["free", "team", "pro", "enterprise", "self_hosted"] })
    .notNull()
    .default("free"),
  /** Enterprise limits set by an operator; null means the plan's defaults. */
  customLimits: jsonb("custom_limits").$type<Record<string, number> | null>(),
  /**
   * The API version the team's keys and tokens answer in unless a request names another: the newest one when the
   * team was created (core sets it); teams from before versions could be pinned have the first.
   */
  apiVersion: text("api_version").notNull().default("2026-11-01"),
  personalOwnerId: text("personal_owner_id").references(() => users.id, {
    onDelete: "set null",
  }),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

export const teamMembers = pgTable(
  "team_members",
  {
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: ["owner", "admin", "member"] }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.teamId, t.userId] }),
    index("team_members_user_idx").on(t.userId),
    // The member list, newest member first.
    index("team_members_team_order_idx").on(t.teamId, ...newestFirst(t.createdAt, t.userId)),
  ],
);
