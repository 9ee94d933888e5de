import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { newestFirst } from "./list-order";
import { teams } from "./teams";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** A team's subscription: where to POST which events, and the secret deliveries are signed with. */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description"),
    /** Event types, or `["*"]`. */
    enabledEvents: text("enabled_events").array().notNull(),
    /** The API version its event payloads are rendered in: the creating request's; the first for older ones. */
    apiVersion: text("api_version").notNull().default("2026-11-01"),
    status: text("status", { enum: ["enabled", "disabled"] })
      .notNull()
      .default("enabled"),
    disabledReason: text("disabled_reason"),
    disabledAt: ts("disabled_at"),
    /** sha256 hex of the plaintext secret: what the contract promises to keep. */
    secretHash: text("secret_hash").notNull(),
    /** The same secret sealed with the server key (AES-256-GCM), because signing needs it again. */
    secretSealed: text("secret_sealed").notNull(),
    /** The secret replaced by the last rotation; keeps signing `Service-Signature` until it expires. */
    previousSecretSealed: text("previous_secret_sealed"),
    previousSecretExpiresAt: ts("previous_secret_expires_at"),
    secretRotatedAt: ts("secret_rotated_at"),
    /** 410 answers in a row; three disable the endpoint. */
    goneStreak: integer("gone_streak").notNull().default(0),
    /** Only deliveries attempted since then count towards automatic disabling (set again on re-enabling). */
    failureWindowStart: ts("failure_window_start").notNull().defaultNow(),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("webhook_endpoints_team_idx").on(t.teamId, t.status),
    index("webhook_endpoints_team_order_idx").on(t.teamId, ...newestFirst(t.updatedAt, t.id)),
  ],
);

/**
 * One event (or test event) to one endpoint: the outbox row, written in the transaction that writes the event,
 * then claimed by a worker (`claimed_until` is the lease, `claim_token` proves which claim may settle it).
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    /** Creation order; lists and cursors follow it because timestamps can tie. */
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity().notNull(),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    teamId: text("team_id").notNull(),
    /** The event's id (`event_test_...` for test deliveries, which have no event row). */
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    synthetic: boolean("synthetic").notNull().default(false),
    /** The exact body of a test delivery; real deliveries send their event row's payload. */
    payload: text("payload"),
    status: text("status", { enum: ["pending", "retrying", "delivered", "abandoned"] })
      .notNull()
      .default("pending"),
    attemptCount: integer("attempt_count").notNull().default(0),
    nextAttemptAt: ts("next_attempt_at"),
    claimedUntil: ts("claimed_until"),
    claimToken: text("claim_token"),
    lastAttemptAt: ts("last_attempt_at"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    deliveredAt: ts("delivered_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("webhook_deliveries_endpoint_seq_idx").on(t.endpointId, ...newestFirst(t.seq)),
    index("webhook_deliveries_endpoint_status_seq_idx").on(t.endpointId, t.status, ...newestFirst(t.seq)),
    index("webhook_deliveries_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`${t.status} in ('pending', 'retrying')`),
    index("webhook_deliveries_endpoint_attempted_idx").on(t.endpointId, t.lastAttemptAt.desc()),
    index("webhook_deliveries_event_idx").on(t.eventId),
    index("webhook_deliveries_created_idx").on(t.createdAt),
  ],
);

/** Every attempt of a delivery, kept for the delivery log. */
export const webhookDeliveryAttempts = pgTable(
  "webhook_delivery_attempts",
  {
    id: bigint("id", { mode: "number" }).generatedAlwaysAsIdentity().primaryKey(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    startedAt: ts("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    succeeded: boolean("succeeded").notNull(),
    statusCode: integer("status_code"),
    /** At most 1 KB of the receiver's answer. */
    responseBody: text("response_body"),
    error: text("error"),
  },
  (t) => [index("webhook_delivery_attempts_delivery_idx").on(t.deliveryId, t.number)],
);
