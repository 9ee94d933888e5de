import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { evaluations } from "./evaluations";
import { newestFirst } from "./list-order";
import { teams } from "./teams";
import { users } from "./users";

/** A user outside the owning team given access to one evaluation. */
export const evaluationShares = pgTable(
  "evaluation_shares",
  {
    id: text("id").primaryKey(),
    evaluationId: text("evaluation_id")
      .notNull()
      .references(() => evaluations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    permission: text("permission", { enum: ["VIEWER", "EDITOR", "OWNER"] }).notNull(),
    /** The address an accepted invite was sent to, when the share came from one. */
    inviteEmail: text("invite_email"),
    grantedBy: text("granted_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("evaluation_shares_evaluation_user_idx").on(t.evaluationId, t.userId),
    // The evaluations shared with a user: the list's shared branch and the access check.
    index("evaluation_shares_user_idx").on(t.userId, t.evaluationId),
    index("evaluation_shares_evaluation_order_idx").on(t.evaluationId, ...newestFirst(t.updatedAt, t.id)),
  ],
);

/**
 * An emailed invitation, to an evaluation (becomes a share) or to a team (becomes a membership). Only the sha256
 * of its token is kept; the token itself is in the email alone.
 */
export const invites = pgTable(
  "invites",
  {
    id: text("id").primaryKey(),
    kind: text("kind", { enum: ["evaluation", "team"] }).notNull(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    evaluationId: text("evaluation_id").references(() => evaluations.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    permission: text("permission", { enum: ["VIEWER", "EDITOR"] }),
    role: text("role", { enum: ["owner", "admin", "member"] }),
    tokenHash: text("token_hash").notNull().unique(),
    status: text("status", { enum: ["pending", "accepted", "revoked"] }).notNull(),
    invitedBy: text("invited_by").references(() => users.id, { onDelete: "set null" }),
    acceptedBy: text("accepted_by").references(() => users.id, { onDelete: "set null" }),
    acceptedAt: timestamp("accepted_at", { withTimezone: true, mode: "date" }),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("invites_evaluation_order_idx").on(t.evaluationId, ...newestFirst(t.updatedAt, t.id)),
    index("invites_team_order_idx").on(t.teamId, ...newestFirst(t.updatedAt, t.id)),
  ],
);

export const accessRequests = pgTable(
  "access_requests",
  {
    id: text("id").primaryKey(),
    evaluationId: text("evaluation_id")
      .notNull()
      .references(() => evaluations.id, { onDelete: "cascade" }),
    /** The evaluation's team, kept here so a team's inbox reads from one index. */
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    requesterId: text("requester_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    message: text("message"),
    status: text("status", { enum: ["pending", "approved", "declined", "withdrawn"] }).notNull(),
    decidedBy: text("decided_by").references(() => users.id, { onDelete: "set null" }),
    decidedAt: timestamp("decided_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    // One open request per person and evaluation.
    uniqueIndex("access_requests_one_pending_idx")
      .on(t.evaluationId, t.requesterId)
      .where(sql`status = 'pending'`),
    index("access_requests_evaluation_order_idx").on(t.evaluationId, ...newestFirst(t.updatedAt, t.id)),
    index("access_requests_team_status_order_idx").on(t.teamId, t.status, ...newestFirst(t.updatedAt, t.id)),
    index("access_requests_requester_order_idx").on(
      t.requesterId,
      t.evaluationId,
      ...newestFirst(t.updatedAt, t.id),
    ),
  ],
);

export const notifications = pgTable(
  "notifications",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    title: text("title").notNull(),
    body: text("body"),
    /** Ids the notification is about (evaluationId, requestId, runId, endpointId...), and a link to open. */
    data: jsonb("data").$type<Record<string, string>>().notNull().default({}),
    link: text("link"),
    /** The list reads unread first, newest first within each, from one index. */
    unread: boolean("unread").notNull().default(true),
    readAt: timestamp("read_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("notifications_user_order_idx").on(t.userId, ...newestFirst(t.unread, t.createdAt, t.id))],
);

/** Mail waiting to go out: written in the transaction that causes it, sent and retried by the worker. */
export const emailOutbox = pgTable(
  "email_outbox",
  {
    id: text("id").primaryKey(),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    status: text("status", { enum: ["pending", "sent", "logged", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lastError: text("last_error"),
    sentAt: timestamp("sent_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("email_outbox_due_idx").on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index("email_outbox_order_idx").on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
  ],
);
