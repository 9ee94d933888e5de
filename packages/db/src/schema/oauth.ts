import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { newestFirst } from "./list-order";
import { teams } from "./teams";
import { users } from "./users";

/**
 * What the OAuth authorization server keeps between requests (clients, authorization codes, refresh tokens,
 * interactions, its own sessions and grants), one row per record. Records whose id is itself a credential (codes,
 * refresh tokens, registration tokens) are keyed by the sha256 of the id and stored without it; a client's secret
 * is sealed with the encryption key, since token requests compare against it.
 */
export const oauthRecords = pgTable(
  "oauth_records",
  {
    model: text("model").notNull(),
    key: text("key").notNull(),
    payload: jsonb("payload").notNull(),
    grantId: text("grant_id"),
    uid: text("uid"),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
    consumedAt: timestamp("consumed_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    primaryKey({ columns: [t.model, t.key] }),
    index("oauth_records_grant_idx").on(t.grantId).where(sql`${t.grantId} is not null`),
    index("oauth_records_uid_idx").on(t.model, t.uid).where(sql`${t.uid} is not null`),
    index("oauth_records_expiry_idx").on(t.expiresAt),
  ],
);

/**
 * A user's consent to a third-party app, for one team and one resource. Access tokens carry its id (`gid`), so
 * disconnecting the app or replaying a rotated refresh token ends the tokens already issued.
 */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: text("id").primaryKey(),
    clientId: text("client_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    /** The audiences granted, space-separated (the REST API, the MCP server). */
    resource: text("resource").notNull(),
    scopes: text("scopes").array().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
    /** `user` (disconnected), `reuse` (a rotated refresh token came back) or `client` (the app revoked it). */
    revokedReason: text("revoked_reason"),
  },
  (t) => [
    index("oauth_grants_user_client_idx").on(t.userId, t.clientId),
    index("oauth_grants_user_order_idx")
      .on(t.userId, ...newestFirst(t.createdAt, t.id))
      .where(sql`${t.revokedAt} is null`),
  ],
);

/**
 * A design-tool plugin asking to be paired: a short code the user approves on the dashboard, and the polling
 * secret the plugin exchanges for its token once. Both are stored as sha256 hashes.
 */
export const pluginPairings = pgTable(
  "plugin_pairings",
  {
    codeHash: text("code_hash").primaryKey(),
    pollSecretHash: text("poll_secret_hash").notNull(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    approvedAt: timestamp("approved_at", { withTimezone: true, mode: "date" }),
    redeemedAt: timestamp("redeemed_at", { withTimezone: true, mode: "date" }),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("plugin_pairings_expiry_idx").on(t.expiresAt)],
);
