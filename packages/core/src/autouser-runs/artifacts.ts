import { autouserRunTurns, type DbOrTx, files } from "@rubricon/db";
import { and, asc, eq, isNotNull } from "drizzle-orm";
import { FILE_URL_TTL_MS, signedUrlOf, storeGeneratedFile } from "../files/files";
import type { FileStorage } from "../files/storage/file-storage";
import type { Clock } from "../shared/clock";

/** The run an artifact belongs to: its files are the team's, linked to the evaluation (and removed with it). */
export interface ArtifactOwner {
  id: string;
  teamId: string;
  evaluationId: string;
}

/** Where a run's artifacts are listed, recorded as its `artifactsPath`. */
export function artifactsPathOf(evaluationId: string, runId: string): string {
  return `/api/v1/evaluations/${evaluationId}/autouser-runs/${runId}/artifacts`;
}

/** Keeps a screenshot of a run as an `artifact` file, in the same storage as uploads; answers the file's id. */
export async function storeArtifact(
  db: DbOrTx,
  storage: FileStorage,
  run: ArtifactOwner,
  name: string,
  bytes: Uint8Array,
  contentType: string,
  clock: Clock,
): Promise<string> {
  const file = await storeGeneratedFile(
    db,
    storage,
    {
      teamId: run.teamId,
      evaluationId: run.evaluationId,
      filename: name,
      contentType,
      bytes,
      kind: "artifact",
    },
    clock,
  );
  return file.id;
}

/** A run's artifacts in turn order, each with a signed link valid for `FILE_URL_TTL_MS`. */
export async function runArtifacts(db: DbOrTx, storage: FileStorage, runId: string, clock: Clock) {
  const rows = await db
    .select({ turn: autouserRunTurns.turn, name: autouserRunTurns.screenshot, file: files })
    .from(autouserRunTurns)
    .innerJoin(files, eq(files.id, autouserRunTurns.screenshotFileId))
    .where(and(eq(autouserRunTurns.runId, runId), isNotNull(autouserRunTurns.screenshotFileId)))
    .orderBy(asc(autouserRunTurns.attempt), asc(autouserRunTurns.turn), asc(autouserRunTurns.createdAt))
    .limit(1000);
  const expiresAt = new Date(clock.now().getTime() + FILE_URL_TTL_MS).toISOString();
  return Promise.all(
    rows.map(async (r) => ({
      name: r.name ?? r.file.filename,
      fileId: r.file.id,
      contentType: r.file.contentType,
      size: r.file.size ?? 0,
      turn: r.turn,
      url: await signedUrlOf(storage, r.file, clock),
      expiresAt,
    })),
  );
}
