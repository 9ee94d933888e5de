import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Sort keys of deleted list items, so a cursor naming a deleted item still pages correctly. */
export const listTombstones = pgTable("list_tombstones", {
  id: text("id").primaryKey(),
  resource: text("resource").notNull(),
  sortUpdatedAt: timestamp("sort_updated_at", {
    withTimezone: true,
    mode: "date",
  }).notNull(),
  deletedAt: timestamp("deleted_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});
