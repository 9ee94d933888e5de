import { bigint, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { teams } from "./teams";

/**
 * An uploaded or server-made file (a stimulus, an autouser run's screenshot). The bytes live in the file store
 * under `storage_key`; the row says whose they are and whether they passed the content check.
 */
export const files = pgTable(
  "files",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    /**
     * The evaluation the file belongs to. No foreign key on purpose: when the evaluation is deleted the row stays
     * until the worker has removed its bytes from the store too.
     */
    evaluationId: text("evaluation_id"),
    /** `upload` (a user's stimulus) or `artifact` (made by the server, e.g. a run's screenshot). */
    kind: text("kind", { enum: ["upload", "artifact"] })
      .notNull()
      .default("upload"),
    filename: text("filename").notNull(),
    /** Declared at init; replaced by the type read from the bytes once the file is ready. */
    contentType: text("content_type").notNull(),
    status: text("status", { enum: ["pending", "ready", "rejected"] }).notNull(),
    /** The size the uploader declared (direct uploads), which the stored object must match. */
    declaredSize: bigint("declared_size", { mode: "number" }),
    size: bigint("size", { mode: "number" }),
    storageKey: text("storage_key").notNull(),
    createdBy: text("created_by"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("files_team_idx").on(t.teamId),
    index("files_evaluation_idx").on(t.evaluationId),
    // A moved evaluation's copy shares its original's bytes: deleting a row asks whether another names them.
    index("files_storage_key_idx").on(t.storageKey),
    // The clean-up reads pending uploads by age.
    index("files_status_created_idx").on(t.status, t.createdAt),
  ],
);

export type FileRow = typeof files.$inferSelect;
