import { autouserRunTurns, type DbOrTx, files } from "@rubricon/db";
import { asc, eq } from "drizzle-orm";
import type { FileStorage } from "../../evaluation";
import { FILE_URL_TTL_MS, signedUrlOf } from "../../evaluation";
import type { Clock } from "../../kernel";

/** Where a run's artifacts are listed, recorded as its `artifactsPath`. */
export function artifactsPathOf(evaluationId: string, runId: string): string {
  return `/api/v1/evaluations/${evaluationId}/autouser-runs/${runId}/artifacts`;
}

/** A run's artifacts in turn order, each with a signed link valid for `FILE_URL_TTL_MS`. */
export async function runArtifacts(db: DbOrTx, storage: FileStorage, runId: string, clock: Clock) {
  const rows = await db
    .select({ turn: autouserRunTurns.turn, name: autouserRunTurns.screenshot, file: files })
    .from(autouserRunTurns)
    .innerJoin(files, eq(files.id, autouserRunTurns.screenshotFileId))
    .where(eq(autouserRunTurns.runId, runId))
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
