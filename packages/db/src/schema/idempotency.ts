import { integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/** One row per (scope, Idempotency-Key): the first request's fingerprint and, once done, its response. */
export const idempotencyRecords = pgTable(
  "idempotency_records",
  {
    /** `team:<id>` for team-bound credentials, `user:<id>` for sessions. */
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    requestFingerprint: text("request_fingerprint").notNull(),
    state: text("state", { enum: ["in_progress", "done"] }).notNull(),
    responseStatus: integer("response_status"),
    responseBody: jsonb("response_body"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] })],
);
