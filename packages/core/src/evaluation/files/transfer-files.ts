import { comparisons, type DbOrTx, files, newId, type StimulusRow } from "@rubricon/db";
import { and, eq, inArray, ne, notInArray, sql } from "drizzle-orm";
import { comparisonShowsFile } from "./stimulus-files";

/** The file ids a stimulus shows. */
function fileIdsOf(stimulus: StimulusRow): string[] {
  if (stimulus.kind === "single") return stimulus.fileId ? [stimulus.fileId] : [];
  return [stimulus.sideA.fileId, stimulus.sideB.fileId].filter((id): id is string => id !== null);
}

function withFileIds(stimulus: StimulusRow, copies: Map<string, string>): StimulusRow {
  const swap = (id: string | null) => (id !== null ? (copies.get(id) ?? id) : null);
  if (stimulus.kind === "single") return { ...stimulus, fileId: swap(stimulus.fileId) };
  return {
    ...stimulus,
    sideA: { ...stimulus.sideA, fileId: swap(stimulus.sideA.fileId) },
    sideB: { ...stimulus.sideB, fileId: swap(stimulus.sideB.fileId) },
  };
}

/**
 * Gives the files of an evaluation that moves from team `from` to team `to` to the new team, inside the move's
 * transaction. A file that only this evaluation uses moves with it. A file that other evaluations of the old team
 * also show (or one the evaluation only borrowed) stays where it is, and the new team gets a copy: a row of its own
 * over the same stored bytes, which this evaluation's comparisons now name. The bytes are removed only when the
 * last row naming them goes (`bytesStillNamed`). Answers how many files the evaluation now has in the new team.
 */
export async function moveEvaluationFiles(
  tx: DbOrTx,
  input: { evaluationId: string; from: string; to: string; now: Date },
): Promise<number> {
  const { evaluationId, from, to, now } = input;
  const rows = await tx
    .select({ id: comparisons.id, stimulus: comparisons.stimulus })
    .from(comparisons)
    .where(eq(comparisons.evaluationId, evaluationId));
  const shown = [...new Set(rows.flatMap((r) => fileIdsOf(r.stimulus)))];

  // Files of the old team that this evaluation shows or owns, and whether another evaluation shows them too.
  const candidates = await tx
    .select({
      id: files.id,
      evaluationId: files.evaluationId,
      // Spelled out: in a select list drizzle names a column without its table, which `c` would then capture.
      elsewhere: sql<boolean>`exists (select 1 from ${comparisons} c where c.evaluation_id <> ${evaluationId}
        and ${comparisonShowsFile(sql.raw('"files"."id"'))})`,
    })
    .from(files)
    .where(
      and(
        eq(files.teamId, from),
        shown.length > 0
          ? sql`(${files.evaluationId} = ${evaluationId} or ${inArray(files.id, shown)})`
          : eq(files.evaluationId, evaluationId),
      ),
    );
  const stays = candidates.filter((f) => f.elsewhere || f.evaluationId !== evaluationId).map((f) => f.id);
  const copied = new Map<string, string>();
  if (stays.length > 0) {
    const originals = await tx.select().from(files).where(inArray(files.id, stays));
    for (const original of originals) {
      if (!shown.includes(original.id)) continue;
      const id = newId("file");
      copied.set(original.id, id);
      await tx.insert(files).values({ ...original, id, teamId: to, evaluationId, updatedAt: now });
    }
    for (const row of rows) {
      if (!fileIdsOf(row.stimulus).some((f) => copied.has(f))) continue;
      await tx
        .update(comparisons)
        .set({ stimulus: withFileIds(row.stimulus, copied) })
        .where(eq(comparisons.id, row.id));
    }
  }
  const moved = await tx
    .update(files)
    .set({ teamId: to, updatedAt: now })
    .where(
      and(
        eq(files.evaluationId, evaluationId),
        eq(files.teamId, from),
        stays.length > 0 ? notInArray(files.id, stays) : undefined,
      ),
    )
    .returning({ id: files.id });
  return moved.length + copied.size;
}

/**
 * Whether a file row (other than `except`) still names these stored bytes: a moved evaluation's copy shares its
 * original's bytes, so they are removed only with the last row.
 */
export async function bytesStillNamed(db: DbOrTx, storageKey: string, except?: string): Promise<boolean> {
  const [row] = await db
    .select({ id: files.id })
    .from(files)
    .where(and(eq(files.storageKey, storageKey), except ? ne(files.id, except) : undefined))
    .limit(1);
  return row !== undefined;
}
