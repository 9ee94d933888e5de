import {
  DeletedObject,
  FileDoctorReport,
  FileIdParam,
  FileInitInput,
  FileUploadFields,
  FileUploadTicket,
  MULTIPART_FILE_LIMIT,
  UploadedFile,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { ApiError } from "@rubricon/core";
import { apiProcedure, router } from "../trpc/init";
import { RedirectTarget, redirectTo } from "../trpc/redirect";

const tags = ["Files"];

export const filesRouter = router({
  // POST /files — upload a file of up to 10 MB as multipart/form-data
  upload: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/files",
        tags,
        summary: "Upload a file",
        description:
          "A `multipart/form-data` body with the file in the `file` part (at most 10 MB) and optional `teamId` " +
          "and `evaluationId` parts. The type is read from the file's bytes: PNG, JPEG, WebP, GIF, MP4, WebM or " +
          "PDF, and it must agree with the part's type and the name's extension. Larger files: `POST /files/init`.",
      },
      scope: "evaluations:write",
      successStatus: 201,
      // The body is a stream, not a JSON document a replay could be matched against.
      idempotent: false,
      upload: { field: "file", maxFileBytes: MULTIPART_FILE_LIMIT },
    })
    .input(FileUploadFields)
    .output(UploadedFile)
    .mutation(({ ctx, input }) => {
      if (!ctx.upload) {
        throw ApiError.invalid("file", "Upload the file as `multipart/form-data` to POST /api/v1/files.");
      }
      return core.createUploadedFile(ctx.core, ctx.services.storage, ctx.actor, input, ctx.upload);
    }),

  // POST /files/init — start a direct upload: a pending file and a URL to PUT its bytes to
  init: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/files/init",
        tags,
        summary: "Start a direct upload",
        description:
          "Answers a pending file and `uploadUrl`: PUT exactly `size` bytes there with `headers`, before " +
          "`expiresAt`, then call `POST /files/{fileId}/finalize`. The largest file depends on the plan.",
      },
      scope: "evaluations:write",
      successStatus: 201,
    })
    .input(FileInitInput)
    .output(FileUploadTicket)
    .mutation(({ ctx, input }) => core.initUpload(ctx.core, ctx.services.storage, ctx.actor, input)),

  // POST /files/{fileId}/finalize — check a direct upload's size and type: ready, or rejected
  finalize: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/files/{fileId}/finalize",
        tags,
        summary: "Finish a direct upload",
        description:
          "Checks the uploaded bytes: the declared size, and the declared type against the type read from the " +
          "bytes. The file becomes `ready`, or `rejected` (its bytes deleted) with the reason as the error.",
      },
      scope: "evaluations:write",
      // A rejection is recorded even though the request fails; an idempotent replay would roll it back.
      idempotent: false,
    })
    .input(FileIdParam)
    .output(UploadedFile)
    .mutation(({ ctx, input }) =>
      core.finalizeUpload(ctx.core, ctx.services.storage, ctx.actor, input.fileId),
    ),

  // GET /files/{fileId} — 302 to a short-lived signed URL of the file's bytes
  get: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/files/{fileId}",
        tags,
        summary: "Download a file",
        description:
          "After a permission check, a 302 to a signed URL valid for five minutes. The response is never cached.",
      },
      scope: "evaluations:read",
      successStatus: 302,
    })
    .input(FileIdParam)
    .output(RedirectTarget)
    .query(async ({ ctx, input }) =>
      redirectTo(await core.fileDownloadUrl(ctx.core, ctx.services.storage, ctx.actor, input.fileId)),
    ),

  // GET /files/{fileId}/doctor — checks the stored file end to end and says what is wrong
  doctor: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/files/{fileId}/doctor",
        tags,
        summary: "Check a stored file",
        description:
          "Checks a file end to end: its upload was finalized, its object exists in storage, the object's size " +
          "and the type read from its bytes match the record, and a fresh signed URL serves it. Answers 200 with " +
          "each check (`ok`, `failed`, or `skipped` when a check it needs failed), `healthy`, and a `summary` " +
          "saying in words what is wrong. Nothing is changed.",
      },
      scope: "evaluations:read",
    })
    .input(FileIdParam)
    .output(FileDoctorReport)
    .query(({ ctx, input }) => core.diagnoseFile(ctx.core, ctx.services.storage, ctx.actor, input.fileId)),

  // DELETE /files/{fileId} — delete a file and its bytes
  delete: apiProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/files/{fileId}",
        tags,
        summary: "Delete a file",
        description: "Deletes a file and its stored bytes.",
      },
      scope: "evaluations:write",
    })
    .input(FileIdParam)
    .output(DeletedObject)
    .mutation(({ ctx, input }) => core.deleteFile(ctx.core, ctx.services.storage, ctx.actor, input.fileId)),
});
