import {
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  unique,
} from "drizzle-orm/pg-core";
import { newestFirst } from "./list-order";
import { teams } from "./teams";
import { users } from "./users";

/** The persona as the agents package reads it (`Persona` in @rubricon/agents), stored whole. */
export type PersonaRow = {
  description: string;
  goals: string[];
  traits: string[];
  expertise: "novice" | "intermediate" | "expert";
  accessibilityNeeds: string[];
  device: {
    kind: "desktop" | "mobile";
    viewport: { width: number; height: number };
    network: "fast" | "slow-4g" | "slow-3g";
  };
};

export const autousers = pgTable(
  "autousers",
  {
    id: text("id").primaryKey(),
    /** Null for system personas, which every team sees and none may change. */
    teamId: text("team_id").references(() => teams.id, { onDelete: "cascade" }),
    isSystem: boolean("is_system").notNull().default(false),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    name: text("name").notNull(),
    role: text("role").notNull(),
    /** Extra instructions for a model judge; the heuristic judge ignores them. */
    systemPrompt: text("system_prompt"),
    persona: jsonb("persona").$type<PersonaRow>().notNull(),
    status: text("status", { enum: ["draft", "published"] })
      .notNull()
      .default("draft"),
    visibility: text("visibility", { enum: ["private", "public"] })
      .notNull()
      .default("private"),
    calibrationStatus: text("calibration_status", {
      enum: ["uncalibrated", "calibrating", "calibrated", "frozen"],
    })
      .notNull()
      .default("uncalibrated"),
    /** The frozen rubric version runs use; null until one is frozen. */
    activeRubricId: text("active_rubric_id"),
    /** Set when this persona was duplicated from another (system) one. */
    sourceAutouserId: text("source_autouser_id"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("autousers_team_order_idx").on(t.teamId, ...newestFirst(t.updatedAt, t.id)),
    index("autousers_system_order_idx").on(t.isSystem, ...newestFirst(t.updatedAt, t.id)),
  ],
);

/**
 * How an autouser rates one template. A frozen row never changes: editing a frozen rubric writes a new
 * row with the next `version`.
 */
export const autouserRubrics = pgTable(
  "autouser_rubrics",
  {
    id: text("id").primaryKey(),
    autouserId: text("autouser_id")
      .notNull()
      .references(() => autousers.id, { onDelete: "cascade" }),
    /** The template (dimension) this rubric rates. */
    dimensionId: text("dimension_id").notNull(),
    name: text("name").notNull(),
    version: integer("version").notNull().default(1),
    /** What the judge is told about rating this template as this persona. */
    guidance: text("guidance").notNull().default(""),
    /** Per-signal weights for the heuristic judge (signal name → weight), empty for the defaults. */
    weights: jsonb("weights").$type<Record<string, number>>().notNull().default({}),
    isFrozen: boolean("is_frozen").notNull().default(false),
    frozenAt: timestamp("frozen_at", { withTimezone: true, mode: "date" }),
    krippendorffAlpha: doublePrecision("krippendorff_alpha"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    unique("autouser_rubrics_version_uq").on(t.autouserId, t.dimensionId, t.version),
    index("autouser_rubrics_order_idx").on(t.autouserId, ...newestFirst(t.updatedAt, t.id)),
  ],
);

/** A team's own model key. The key is sealed with AES-256-GCM (`ENCRYPTION_KEY`) and never returned. */
export const byokSettings = pgTable("byok_settings", {
  teamId: text("team_id")
    .primaryKey()
    .references(() => teams.id, { onDelete: "cascade" }),
  provider: text("provider", { enum: ["openai", "anthropic", "google", "openai-compatible"] }).notNull(),
  model: text("model").notNull(),
  baseUrl: text("base_url"),
  sealedKey: text("sealed_key"),
  /** The last four characters of the key, so people can tell keys apart without seeing them. */
  keyHint: text("key_hint"),
  enabled: boolean("enabled").notNull().default(true),
  updatedBy: text("updated_by").references(() => users.id, { onDelete: "set null" }),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});
