import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ApiError, SNIFF_BYTES, type StagedUpload } from "@rubricon/core";
import busboy from "busboy";
import type { Exchange } from "../request/exchange";
import type { UploadRoute } from "../request/route-meta";

/** A multipart upload route: the part named `field` is the file, other parts are plain fields. */
export type { UploadRoute } from "../request/route-meta";

/** Room for the other parts and the multipart framing around a file of the largest size. */
const FRAMING_BYTES = 64 * 1024;
const STAGING_DIR = join(tmpdir(), "rubricon-uploads");

export interface ReceivedUpload {
  fields: Record<string, string>;
  file: StagedUpload;
}

function tooLarge(limit: number): ApiError {
  return new ApiError(
    "file_too_large",
    `The file is larger than ${limit / (1024 * 1024)} MB, the most \`POST /files\` takes; use \`POST /files/init\` for larger files.`,
    { param: "file", details: { limit }, headers: { Connection: "close" } },
  );
}

/** The name without any folders a client put in front, or control characters. */
function cleanFilename(raw: string | undefined): string {
  const base = (raw ?? "").split(/[\\/]/).pop() ?? "";
  const clean = [...base]
    .filter((c) => c.charCodeAt(0) >= 0x20)
    .join("")
    .trim();
  return clean.slice(0, 255) || "upload";
}

/** Copies the bytes through, counting them and keeping the first few for the content check. */
function measure(into: { size: number; head: Buffer[]; headSize: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      into.size += chunk.length;
      if (into.headSize < SNIFF_BYTES) {
        const part = chunk.subarray(0, SNIFF_BYTES - into.headSize);
        into.head.push(part);
        into.headSize += part.length;
      }
      done(null, chunk);
    },
  });
}

/**
 * Streams a `multipart/form-data` body with busboy: the file part goes to a staging file as it arrives (never held
 * in memory), and the upload is cut off with 413 the moment the file passes the route's limit. The caller removes
 * the staging file with `discardUpload` once it is stored.
 */
export async function receiveMultipart(ex: Exchange, route: UploadRoute): Promise<ReceivedUpload> {
  const contentType = ex.req.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    throw new ApiError(
      "unsupported_media_type",
      `Send the file as \`multipart/form-data\` with the file in the \`${route.field}\` part.`,
    );
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": contentType },
      limits: { files: 1, fileSize: route.maxFileBytes, fields: 20, fieldSize: 1024, parts: 21 },
    });
  } catch {
    throw new ApiError("unsupported_media_type", "The multipart body's boundary is missing or malformed.");
  }
  await mkdir(STAGING_DIR, { recursive: true });
  const fields: Record<string, string> = {};
  // Set from busboy's callbacks, hence the widened types: the compiler cannot see them change.
  let failure = null as ApiError | null;
  let file = null as StagedUpload | null;
  let written = null as Promise<void> | null;
  const path = join(STAGING_DIR, `${Date.now()}-${randomBytes(8).toString("hex")}`);

  parser.on("field", (name, value, info) => {
    if (info.valueTruncated) failure ??= ApiError.invalid(name, `\`${name}\` is too long.`);
    else fields[name] = value;
  });
  parser.on("file", (name, stream, info) => {
    if (name !== route.field || file) {
      failure ??= ApiError.invalid(
        name,
        `Send one file, in the \`${route.field}\` part.`,
        "parameter_unknown",
      );
      stream.resume();
      return;
    }
    const measured = { size: 0, head: [] as Buffer[], headSize: 0 };
    const staged: StagedUpload = {
      filename: cleanFilename(info.filename),
      contentType: info.mimeType || null,
      path,
      size: 0,
      head: new Uint8Array(0),
    };
    file = staged;
    stream.on("limit", () => {
      failure ??= tooLarge(route.maxFileBytes);
    });
    written = pipeline(stream, measure(measured), createWriteStream(path)).then(() => {
      staged.size = measured.size;
      staged.head = Buffer.concat(measured.head);
    });
  });
  parser.on("partsLimit", () => {
    failure ??= ApiError.invalid(route.field, "The body has too many parts.");
  });
  const finished = new Promise<void>((resolve, reject) => {
    parser.on("close", resolve);
    parser.on("error", reject);
  });
  // Observed below once the body is in; a parser destroyed early must not leave the rejection unhandled.
  finished.catch(() => {});

  try {
    for await (const chunk of ex.req.bodyChunks(route.maxFileBytes + FRAMING_BYTES)) {
      if (failure) break;
      if (!parser.write(chunk)) await new Promise((resolve) => parser.once("drain", resolve));
      if (failure) break;
    }
    if (failure) throw failure;
    parser.end();
    await finished.catch(() => {
      throw ApiError.invalid(route.field, "The multipart body is malformed.");
    });
    await written;
    if (failure) throw failure;
    if (!file)
      throw ApiError.invalid(route.field, `The \`${route.field}\` part is missing.`, "parameter_missing");
    return { fields, file };
  } catch (err) {
    parser.destroy();
    await written?.catch(() => {});
    await rm(path, { force: true });
    if (err instanceof ApiError && err.code === "request_too_large") throw tooLarge(route.maxFileBytes);
    throw err;
  }
}

export async function discardUpload(upload: ReceivedUpload | null): Promise<void> {
  if (upload) await rm(upload.file.path, { force: true });
}
