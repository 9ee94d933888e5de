import { index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** The event log and outbox: written in the same transaction as the change it records. */
export const events = pgTable(
  "events",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id").notNull(),
    type: text("type").notNull(),
    apiVersion: text("api_version").notNull(),
    objectId: text("object_id").notNull(),
    object: jsonb("object").$type<Record<string, unknown>>().notNull(),
    requestId: text("request_id"),
    idempotencyKey: text("idempotency_key"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("events_team_created_idx").on(t.teamId, t.createdAt.desc(), t.id.desc()),
    index("events_object_idx").on(t.objectId),
  ],
);
