import { z } from "zod";
import { DateTime, IdParam } from "./common";
import type { Plan } from "./teams";

/** What a stimulus or artifact file may be, judged from its bytes, never from its name. */
export const FILE_CONTENT_TYPES = [
  "image/png",
  "image/jpeg",
  "image/webp",
  "image/gif",
  "video/mp4",
  "video/webm",
  "application/pdf",
] as const;
export type FileContentType = (typeof FILE_CONTENT_TYPES)[number];

/** The extensions a file name may carry for each type (a name with another known extension is refused). */
export const FILE_EXTENSIONS: Record<FileContentType, string[]> = {
  "image/png": ["png"],
  "image/jpeg": ["jpg", "jpeg"],
  "image/webp": ["webp"],
  "image/gif": ["gif"],
  "video/mp4": ["mp4", "m4v"],
  "video/webm": ["webm"],
  "application/pdf": ["pdf"],
};

/** `POST /files` (multipart) takes files up to this size on every plan; larger ones use `POST /files/init`. */
export const MULTIPART_FILE_LIMIT = 10 * 1024 * 1024;

const MB = 1024 * 1024;
/** The largest file a team may upload through `POST /files/init`, per plan. */
export const FILE_SIZE_LIMITS: Record<Plan, number> = {
  free: 25 * MB,
  team: 100 * MB,
  pro: 500 * MB,
  enterprise: 1024 * MB,
  self_hosted: 1024 * MB,
};

export const FILE_STATUSES = ["pending", "ready", "rejected"] as const;

export const UploadedFile = z
  .object({
    id: z.string(),
    object: z.literal("file"),
    filename: z.string().meta({
      description:
        "The uploaded name with its extension set from `contentType` (a PNG sent as `x.html` is `x.png`), so a " +
        "download never carries an extension a browser would run.",
    }),
    contentType: z.string(),
    status: z.enum(FILE_STATUSES),
    createdAt: DateTime,
    evaluationId: z.string().nullable(),
    size: z.number().int().nullable(),
  })
  .meta({ id: "UploadedFile" });
export type UploadedFile = z.infer<typeof UploadedFile>;

const Filename = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .refine((name) => !/[\\/]/.test(name) && ![...name].some((c) => c.charCodeAt(0) < 0x20), {
    message: "a file name, without folders or control characters",
  });

export const FileUploadFields = z
  .object({
    teamId: IdParam.optional(),
    evaluationId: IdParam.optional(),
  })
  .strict();

export const FileInitInput = z
  .object({
    teamId: IdParam.optional(),
    evaluationId: IdParam.optional(),
    filename: Filename,
    contentType: z.enum(FILE_CONTENT_TYPES),
    size: z
      .number()
      .int()
      .min(1)
      .max(FILE_SIZE_LIMITS.enterprise)
      .meta({ description: "The exact size in bytes; the upload must match it." }),
  })
  .strict();
export type FileInitInput = z.infer<typeof FileInitInput>;

export const FileUploadTicket = z
  .object({
    object: z.literal("file_upload"),
    fileId: z.string(),
    file: UploadedFile,
    uploadUrl: z.string(),
    method: z.literal("PUT"),
    headers: z.record(z.string(), z.string()),
    expiresAt: DateTime,
  })
  .meta({ id: "FileUploadTicket" });
export type FileUploadTicket = z.infer<typeof FileUploadTicket>;

export const FileIdParam = z.object({ fileId: IdParam });

export const LinkPreviewQuery = z.object({
  url: z.string().min(1).max(2048).meta({ description: "An absolute http(s) URL of a public page." }),
});

export const LinkPreview = z
  .object({
    object: z.literal("link_preview"),
    url: z.string(),
    title: z.string().nullable(),
    description: z.string().nullable(),
    image: z.string().nullable(),
    siteName: z.string().nullable(),
    fetchedAt: DateTime,
  })
  .meta({ id: "LinkPreview" });
export type LinkPreview = z.infer<typeof LinkPreview>;

export const FILE_DOCTOR_CHECKS = ["record", "object_exists", "size", "content_type", "signed_url"] as const;

export const FileDoctorCheck = z.object({
  name: z.enum(FILE_DOCTOR_CHECKS).meta({
    description:
      "`record` (the upload was finalized), `object_exists`, `size` and `content_type` (the stored object " +
      "matches the record, its type read from its bytes), `signed_url` (a fresh download URL serves it).",
  }),
  status: z
    .enum(["ok", "failed", "skipped"])
    .meta({ description: "`skipped` when a check it needs failed." }),
  message: z.string().meta({ description: "What was found, in words." }),
});
export type FileDoctorCheck = z.infer<typeof FileDoctorCheck>;

export const FileDoctorReport = z
  .object({
    object: z.literal("file_doctor"),
    fileId: z.string(),
    storage: z.enum(["local", "s3"]),
    healthy: z.boolean().meta({ description: "True when no check failed." }),
    summary: z.string().meta({ description: "What is wrong, in words; or that nothing is." }),
    checks: z.array(FileDoctorCheck),
  })
  .meta({ id: "FileDoctorReport" });
export type FileDoctorReport = z.infer<typeof FileDoctorReport>;
