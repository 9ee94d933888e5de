import { type DbOrTx, files } from "@rubricon/db";
import { and, eq, inArray, lt, sql } from "drizzle-orm";
import { uploadKeyOf } from "./files";
import { comparisonShowsFile } from "./stimulus-files";
import type { FileStorage } from "./storage/file-storage";
import { bytesStillNamed } from "./transfer-files";

/** A direct upload not finalized within a day is abandoned (its URL expired long before). */
export const PENDING_UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;
const BATCH = 200;

/**
 * Removes what no one can use any more, bytes first and then rows (a crash in between leaves a row to retry,
 * never bytes nobody knows about): pending uploads past their day, rejected files, and files of deleted
 * evaluations that no remaining comparison shows.
 */
export async function removeOrphanedFiles(db: DbOrTx, storage: FileStorage, now: Date): Promise<number> {
  const stale = new Date(now.getTime() - PENDING_UPLOAD_TTL_MS);
  const rows = await db
    .select({ id: files.id, storageKey: files.storageKey })
    .from(files)
    .where(
      sql`(${and(inArray(files.status, ["pending", "rejected"]), lt(files.createdAt, stale))})
        or (${files.evaluationId} is not null
          and not exists (select 1 from evaluations e where e.id = ${files.evaluationId})
          and not exists (select 1 from comparisons c where ${comparisonShowsFile(sql`${files.id}`)}))`,
    )
    .limit(BATCH);
  for (const row of rows) {
    // A moved evaluation's copy may share these bytes with a row that is still in use.
    if (!(await bytesStillNamed(db, row.storageKey, row.id))) await storage.delete(row.storageKey);
    await storage.delete(uploadKeyOf(row.storageKey));
    await db.delete(files).where(eq(files.id, row.id));
  }
  return rows.length;
}
