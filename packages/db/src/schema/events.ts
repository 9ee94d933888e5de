import { bigint, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { newestFirst } from "./list-order";

/** The event log and outbox: written in the same transaction as the change it records. */
export const events = pgTable(
  "events",
  {
    id: text("id").primaryKey(),
    /** Insertion order: the event log and its cursors follow it, since timestamps can tie and ids are random. */
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity().notNull(),
    teamId: text("team_id").notNull(),
    type: text("type").notNull(),
    apiVersion: text("api_version").notNull(),
    objectId: text("object_id").notNull(),
    object: jsonb("object").$type<Record<string, unknown>>().notNull(),
    requestId: text("request_id"),
    idempotencyKey: text("idempotency_key"),
    /** The envelope serialised once at emit time: every delivery and the log send these exact bytes. */
    payload: text("payload"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("events_team_created_idx").on(t.teamId, t.createdAt.desc(), t.id.desc()),
    // Also the log filtered by object and type: an object's events are few.
    index("events_object_seq_idx").on(t.objectId, ...newestFirst(t.seq)),
    index("events_team_seq_idx").on(t.teamId, ...newestFirst(t.seq)),
    // Retention deletes the oldest events first, across teams.
    index("events_created_idx").on(t.createdAt),
    index("events_team_type_seq_idx").on(t.teamId, t.type, ...newestFirst(t.seq)),
  ],
);
