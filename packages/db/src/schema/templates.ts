import { boolean, index, integer, jsonb, pgTable, text, timestamp, unique } from "drizzle-orm/pg-core";
import { newestFirst } from "./list-order";
import { teams } from "./teams";

/** A template's body fields beyond the columns below, exactly as the API shows them. */
export type TemplateBodyRow = Record<string, unknown>;

export const templates = pgTable(
  "templates",
  {
    id: text("id").primaryKey(),
    /** Null for system templates, which every team sees. */
    teamId: text("team_id").references(() => teams.id, { onDelete: "cascade" }),
    isSystem: boolean("is_system").notNull().default(false),
    name: text("name").notNull(),
    version: integer("version").notNull().default(1),
    body: jsonb("body").$type<TemplateBodyRow>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("templates_team_order_idx").on(t.teamId, ...newestFirst(t.updatedAt, t.id)),
    // The list reads the system templates beside the team's (`is_system = $1 or team_id in (...)`).
    index("templates_system_order_idx").on(t.isSystem, ...newestFirst(t.updatedAt, t.id)),
  ],
);

export const templateVersions = pgTable(
  "template_versions",
  {
    id: text("id").primaryKey(),
    templateId: text("template_id")
      .notNull()
      .references(() => templates.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    changeType: text("change_type", {
      enum: ["created", "updated", "duplicated"],
    }).notNull(),
    changeSummary: text("change_summary"),
    /** The whole template (name and body) as it was at this version, so it can be restored. */
    snapshot: jsonb("snapshot").$type<{ name: string; body: TemplateBodyRow }>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    unique("template_versions_template_version_uq").on(t.templateId, t.version),
    index("template_versions_template_order_idx").on(t.templateId, ...newestFirst(t.updatedAt, t.id)),
  ],
);
