import type { StimulusRow, StimulusSideRow } from "@rubricon/db";
import { type DbOrTx, files } from "@rubricon/db";
import { and, inArray, isNull, type SQL, sql } from "drizzle-orm";
import { ApiError } from "../../kernel";

/** A stimulus as a request gave it, and the prefix its fields are named under (`designUrls[0].`). */
export interface StimulusRef {
  stimulus: StimulusRow;
  paramPrefix: string;
}

type Slot = { fileId: string; param: string; set(contentType: string): void };

function slotsOf({ stimulus, paramPrefix }: StimulusRef): Slot[] {
  if (stimulus.kind === "single") {
    if (!stimulus.fileId) return [];
    return [
      {
        fileId: stimulus.fileId,
        param: `${paramPrefix}fileId`,
        set(contentType) {
          stimulus.contentType = contentType;
          // A file stimulus left at the default `URL` type is shown as what its bytes are.
          if (stimulus.stimulusType === "URL") stimulus.stimulusType = stimulusTypeOf(contentType);
        },
      },
    ];
  }
  const side = (s: StimulusSideRow, name: "sideAFileId" | "sideBFileId"): Slot[] =>
    s.fileId
      ? [
          {
            fileId: s.fileId,
            param: `${paramPrefix}${name}`,
            set(contentType) {
              s.contentType = contentType;
            },
          },
        ]
      : [];
  return [...side(stimulus.sideA, "sideAFileId"), ...side(stimulus.sideB, "sideBFileId")];
}

function stimulusTypeOf(contentType: string): "IMAGE" | "VIDEO" | "GIF" {
  if (contentType === "image/gif") return "GIF";
  if (contentType.startsWith("video/")) return "VIDEO";
  return "IMAGE";
}

/**
 * Every file a set of stimuli names must be a ready file of `teamId`; a missing, foreign or unfinished one is
 * refused naming its field. Each file stimulus is given its file's real type, so viewers know how to show it.
 * Answers the ids of the files named.
 */
export async function resolveStimulusFiles(
  db: DbOrTx,
  teamId: string,
  refs: StimulusRef[],
): Promise<string[]> {
  const slots = refs.flatMap(slotsOf);
  if (slots.length === 0) return [];
  const ids = [...new Set(slots.map((s) => s.fileId))];
  const rows = await db
    .select({ id: files.id, teamId: files.teamId, status: files.status, contentType: files.contentType })
    .from(files)
    .where(inArray(files.id, ids));
  const byId = new Map(rows.filter((r) => r.teamId === teamId).map((r) => [r.id, r]));
  for (const slot of slots) {
    const row = byId.get(slot.fileId);
    if (!row) throw ApiError.invalid(slot.param, `No such file: ${slot.fileId}.`);
    if (row.status !== "ready") {
      throw new ApiError(
        "file_not_ready",
        `File ${slot.fileId} is ${row.status}; finalize its upload before using it.`,
        { param: slot.param },
      );
    }
    slot.set(row.contentType);
  }
  return ids;
}

/** Files an evaluation uses belong to it from then on (unless already another's), for the clean-up. */
export async function linkFilesToEvaluation(
  db: DbOrTx,
  evaluationId: string,
  fileIds: string[],
): Promise<void> {
  if (fileIds.length === 0) return;
  await db
    .update(files)
    .set({ evaluationId })
    .where(and(inArray(files.id, fileIds), isNull(files.evaluationId)));
}

/** SQL: whether the stimulus `c.stimulus` (a comparison aliased `c`) shows the file `fileId`, on either side. */
export function comparisonShowsFile(fileId: SQL): SQL {
  return sql`(c.stimulus @> jsonb_build_object('fileId', ${fileId}::text)
    or c.stimulus @> jsonb_build_object('sideA', jsonb_build_object('fileId', ${fileId}::text))
    or c.stimulus @> jsonb_build_object('sideB', jsonb_build_object('fileId', ${fileId}::text)))`;
}
