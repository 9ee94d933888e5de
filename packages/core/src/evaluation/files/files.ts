import {
  FILE_SIZE_LIMITS,
  type FileContentType,
  type FileInitInput,
  type FileUploadTicket,
  type UploadedFile,
} from "@rubricon/contracts";
import { type DbOrTx, type FileRow, files, newId } from "@rubricon/db";
import { and, eq } from "drizzle-orm";
import { findMembership, type Membership, resolveTargetTeam } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, type Clock, systemClock } from "../../kernel";
import { loadVisibleEvaluation } from "../evaluations/access";
import { checkFileContent, nameForType, SNIFF_BYTES } from "./content-check";
import type { FileStorage } from "./storage/file-storage";
import { bytesStillNamed } from "./transfer-files";

/** How long a download link lasts: long enough to load a page of stimuli, short enough not to be shared. */
export const FILE_URL_TTL_MS = 5 * 60 * 1000;
/** How long a direct-upload URL lasts; a pending upload older than a day is removed by the worker. */
export const UPLOAD_URL_TTL_MS = 60 * 60 * 1000;

export function toUploadedFile(row: FileRow): UploadedFile {
  return {
    id: row.id,
    object: "file",
    filename: row.filename,
    contentType: row.contentType,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    evaluationId: row.evaluationId,
    size: row.size,
  };
}

export function fileNotFound(id: string): ApiError {
  return ApiError.notFound("file_not_found", `No such file: ${id}.`);
}

/** The team a new file belongs to: its evaluation's team when it names one, else the team the actor targets. */
async function owningTeam(
  db: DbOrTx,
  actor: Actor,
  input: { teamId?: string; evaluationId?: string },
): Promise<{ membership: Membership; evaluationId: string | null }> {
  if (input.evaluationId === undefined) {
    return { membership: await resolveTargetTeam(db, actor, input.teamId), evaluationId: null };
  }
  const evaluation = await loadVisibleEvaluation(db, actor, input.evaluationId).catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 404)
      throw new ApiError("evaluation_not_found", err.message, { param: "evaluationId" });
    throw err;
  });
  if (input.teamId !== undefined && input.teamId !== evaluation.teamId) {
    throw ApiError.invalid("teamId", "`teamId` must be the team of the evaluation the file belongs to.");
  }
  const membership = await resolveTargetTeam(db, actor, evaluation.teamId);
  return { membership, evaluationId: evaluation.id };
}

const storageKeyOf = (teamId: string, fileId: string) => `${teamId}/${fileId}`;
/** Where a direct upload's URL writes; `finalize` moves it to the file's own key before checking it. */
const UPLOAD_SUFFIX = "-upload";
export const uploadKeyOf = (storageKey: string) => `${storageKey}${UPLOAD_SUFFIX}`;

/** A file the actor may see: its team's, or one of an evaluation the actor may open. Anything else is 404. */
export async function loadVisibleFile(db: DbOrTx, actor: Actor, fileId: string): Promise<FileRow> {
  const [row] = await db.select().from(files).where(eq(files.id, fileId)).limit(1);
  if (!row) throw fileNotFound(fileId);
  if (await findMembership(db, actor, row.teamId)) return row;
  if (row.evaluationId) {
    const visible = await loadVisibleEvaluation(db, actor, row.evaluationId).then(
      (e) => e.teamId === row.teamId,
      () => false,
    );
    if (visible) return row;
  }
  throw fileNotFound(fileId);
}

export interface StagedUpload {
  /** The multipart part's file name and declared type. */
  filename: string;
  contentType: string | null;
  /** Where the body was streamed to, its size, and its first bytes. */
  path: string;
  size: number;
  head: Uint8Array;
}

/** `POST /files`: a multipart upload, already streamed to disk and size-capped by the transport, checked and stored. */
export async function createUploadedFile(
  ctx: CoreContext,
  storage: FileStorage,
  actor: Actor,
  input: { teamId?: string; evaluationId?: string },
  staged: StagedUpload,
): Promise<UploadedFile> {
  const { membership, evaluationId } = await owningTeam(ctx.db, actor, input);
  if (staged.size === 0) throw ApiError.invalid("file", "The file is empty.");
  const contentType = await checkFileContent(staged.head, staged);
  const id = newId("file");
  const key = storageKeyOf(membership.team.id, id);
  await storage.putFile(key, staged.path, { contentType, size: staged.size });
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .insert(files)
    .values({
      id,
      teamId: membership.team.id,
      evaluationId,
      kind: "upload",
      filename: nameForType(staged.filename, contentType),
      contentType,
      status: "ready",
      declaredSize: staged.size,
      size: staged.size,
      storageKey: key,
      createdBy: actor.userId,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return toUploadedFile(row!);
}

/** `POST /files/init`: a pending file and a URL to PUT its bytes to; `finalize` checks them. */
export async function initUpload(
  ctx: CoreContext,
  storage: FileStorage,
  actor: Actor,
  input: FileInitInput,
): Promise<FileUploadTicket> {
  const { membership, evaluationId } = await owningTeam(ctx.db, actor, input);
  const limit = FILE_SIZE_LIMITS[membership.team.plan];
  if (input.size > limit) {
    throw new ApiError(
      "file_too_large",
      `Files on the ${membership.team.plan} plan may be at most ${limit / (1024 * 1024)} MB.`,
      { param: "size", details: { limit } },
    );
  }
  const id = newId("file");
  const key = storageKeyOf(membership.team.id, id);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + UPLOAD_URL_TTL_MS);
  const upload = await storage.signedPutUrl(uploadKeyOf(key), {
    contentType: input.contentType,
    size: input.size,
    expiresAt,
    now,
  });
  const [row] = await ctx.db
    .insert(files)
    .values({
      id,
      teamId: membership.team.id,
      evaluationId,
      kind: "upload",
      // Kept as sent until finalize, which checks its extension against the bytes, then sets it from their type.
      filename: input.filename,
      contentType: input.contentType,
      status: "pending",
      declaredSize: input.size,
      size: null,
      storageKey: key,
      createdBy: actor.userId,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return {
    object: "file_upload",
    fileId: id,
    file: toUploadedFile(row!),
    uploadUrl: upload.url,
    method: "PUT",
    headers: upload.headers,
    expiresAt: expiresAt.toISOString(),
  };
}

/**
 * Refuses a direct upload's PUT unless its file is still pending: once finalized (ready) or rejected, the URL takes
 * no more bytes, though its signature is still good until it expires.
 */
export async function assertUploadPending(db: DbOrTx, uploadKey: string): Promise<void> {
  const storageKey = uploadKey.endsWith(UPLOAD_SUFFIX) ? uploadKey.slice(0, -UPLOAD_SUFFIX.length) : "";
  const fileId = storageKey.split("/")[1] ?? "";
  const [row] = fileId
    ? await db
        .select({ status: files.status })
        .from(files)
        .where(and(eq(files.id, fileId), eq(files.storageKey, storageKey)))
        .limit(1)
    : [];
  if (!row) throw fileNotFound(fileId || uploadKey);
  if (row.status !== "pending") {
    throw new ApiError(
      "signed_url_invalid",
      `File ${fileId} is ${row.status}; this upload URL takes no more bytes. Start again with \`POST /files/init\`.`,
    );
  }
}

async function settle(
  db: DbOrTx,
  row: FileRow,
  change: { status: "ready" | "rejected"; size: number | null; contentType?: string; filename?: string },
  now: Date,
): Promise<FileRow> {
  const [updated] = await db
    .update(files)
    .set({ ...change, updatedAt: now })
    .where(and(eq(files.id, row.id), eq(files.status, "pending")))
    .returning();
  return updated ?? row;
}

/**
 * `POST /files/{fileId}/finalize`: the uploaded object must be there, of the declared size and of the declared
 * type by its bytes. A file that fails is `rejected` and its bytes are deleted; finalizing a ready file again
 * answers it as it is.
 */
export async function finalizeUpload(
  ctx: CoreContext,
  storage: FileStorage,
  actor: Actor,
  fileId: string,
): Promise<UploadedFile> {
  const row = await loadVisibleFile(ctx.db, actor, fileId);
  if (row.status === "ready") return toUploadedFile(row);
  if (row.status === "rejected")
    throw new ApiError("file_not_ready", `File ${fileId} was rejected; upload it again.`, {
      param: "fileId",
    });
  const staged = uploadKeyOf(row.storageKey);
  if ((await storage.size(staged)) === null) {
    throw new ApiError("file_not_ready", "Nothing was uploaded yet: PUT the bytes to `uploadUrl` first.", {
      param: "fileId",
    });
  }
  await storage.promote(staged, row.storageKey);
  const size = (await storage.size(row.storageKey)) ?? 0;
  const reject = async (err: ApiError): Promise<never> => {
    await storage.delete(row.storageKey);
    await settle(ctx.db, row, { status: "rejected", size }, ctx.clock.now());
    throw err;
  };
  if (size !== row.declaredSize) {
    await reject(
      new ApiError(
        "file_size_mismatch",
        `The uploaded object has ${size} bytes, but ${row.declaredSize} were declared; the file is rejected.`,
        { param: "size", details: { declaredSize: row.declaredSize, size } },
      ),
    );
  }
  let contentType: FileContentType;
  try {
    contentType = await checkFileContent(
      await storage.readStart(row.storageKey, SNIFF_BYTES),
      row,
      "contentType",
    );
  } catch (err) {
    if (err instanceof ApiError) return reject(err);
    throw err;
  }
  const filename = nameForType(row.filename, contentType);
  return toUploadedFile(
    await settle(ctx.db, row, { status: "ready", size, contentType, filename }, ctx.clock.now()),
  );
}

/** A short-lived URL for the file's bytes, with the type read from them and its own name. */
export function signedUrlOf(storage: FileStorage, row: FileRow, clock: Clock = systemClock): Promise<string> {
  const now = clock.now();
  return storage.signedGetUrl(row.storageKey, {
    contentType: row.contentType,
    // Files stored before names were set from their type are served under a safe name too.
    filename: nameForType(row.filename, row.contentType),
    expiresAt: new Date(now.getTime() + FILE_URL_TTL_MS),
    now,
  });
}

/** `GET /files/{fileId}`: after the permission check, where the signed URL is. */
export async function fileDownloadUrl(
  ctx: CoreContext,
  storage: FileStorage,
  actor: Actor,
  fileId: string,
): Promise<string> {
  const row = await loadVisibleFile(ctx.db, actor, fileId);
  if (row.status !== "ready")
    throw new ApiError("file_not_ready", `File ${fileId} is ${row.status}, not ready.`, { param: "fileId" });
  return signedUrlOf(storage, row, ctx.clock);
}

/**
 * A signed URL for a ready file, for server-side callers that already hold the right to it (an autouser run
 * opening a file stimulus, the share page): null when there is no such ready file.
 */
export async function signedFileUrl(
  db: DbOrTx,
  storage: FileStorage,
  fileId: string,
  opts: { teamId?: string; clock?: Clock } = {},
): Promise<string | null> {
  const [row] = await db.select().from(files).where(eq(files.id, fileId)).limit(1);
  if (row?.status !== "ready" || (opts.teamId && row.teamId !== opts.teamId)) return null;
  return signedUrlOf(storage, row, opts.clock);
}

/** `DELETE /files/{fileId}`: the row and the bytes. */
export async function deleteFile(ctx: CoreContext, storage: FileStorage, actor: Actor, fileId: string) {
  const row = await loadVisibleFile(ctx.db, actor, fileId);
  if (!(await findMembership(ctx.db, actor, row.teamId))) throw fileNotFound(fileId);
  await ctx.db.delete(files).where(eq(files.id, row.id));
  if (!(await bytesStillNamed(ctx.db, row.storageKey))) await storage.delete(row.storageKey);
  if (row.status === "pending") await storage.delete(uploadKeyOf(row.storageKey));
  return { id: row.id, deleted: true as const };
}

export interface GeneratedFile {
  teamId: string;
  evaluationId: string | null;
  filename: string;
  contentType: string;
  bytes: Uint8Array;
  kind?: "artifact" | "upload";
}

/**
 * Stores a file the server made (an autouser run's screenshot): no upload and no content check, as the bytes are
 * ours. Answers the ready file; `signedFileUrl` gives a link to it.
 */
export async function storeGeneratedFile(
  db: DbOrTx,
  storage: FileStorage,
  input: GeneratedFile,
  clock: Clock = systemClock,
): Promise<UploadedFile> {
  const id = newId("file");
  const key = storageKeyOf(input.teamId, id);
  await storage.putBytes(key, input.bytes, input.contentType);
  const now = clock.now();
  const [row] = await db
    .insert(files)
    .values({
      id,
      teamId: input.teamId,
      evaluationId: input.evaluationId,
      kind: input.kind ?? "artifact",
      filename: input.filename,
      contentType: input.contentType,
      status: "ready",
      declaredSize: input.bytes.byteLength,
      size: input.bytes.byteLength,
      storageKey: key,
      createdBy: null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return toUploadedFile(row!);
}
