import type { FileDoctorCheck, FileDoctorReport } from "@rubricon/contracts";
import type { FileRow } from "@rubricon/db";
import { fileTypeFromBuffer } from "file-type";
import type { Actor, CoreContext } from "../../kernel";
import { SNIFF_BYTES } from "./content-check";
import { loadVisibleFile, signedUrlOf } from "./files";
import type { FileStorage } from "./storage/file-storage";

/** How long the signed URL may take to answer before the check says it does not. */
const URL_TIMEOUT_MS = 5000;

type Check = FileDoctorCheck;
const pass = (name: Check["name"], message: string): Check => ({ name, status: "ok", message });
const fail = (name: Check["name"], message: string): Check => ({ name, status: "failed", message });
const skip = (name: Check["name"], message: string): Check => ({ name, status: "skipped", message });

const describeError = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function sniff(storage: FileStorage, row: FileRow): Promise<Check> {
  try {
    const head = await storage.readStart(row.storageKey, SNIFF_BYTES);
    const found = await fileTypeFromBuffer(head);
    const real = found?.mime === "video/x-m4v" ? "video/mp4" : (found?.mime ?? null);
    if (real === row.contentType) return pass("content_type", `The stored bytes are ${real}, as recorded.`);
    return fail(
      "content_type",
      real
        ? `The stored bytes are ${real}, but the file is recorded as ${row.contentType}.`
        : `The stored bytes are not a recognised media type; the file is recorded as ${row.contentType}.`,
    );
  } catch (error) {
    return fail("content_type", `The stored object could not be read: ${describeError(error)}.`);
  }
}

/** Asks for the first byte through a fresh signed URL, as a browser showing the file would. */
async function answerOf(storage: FileStorage, row: FileRow, ctx: CoreContext): Promise<Check> {
  let url: string;
  try {
    url = await signedUrlOf(storage, row, ctx.clock);
  } catch (error) {
    return fail("signed_url", `No signed URL could be made: ${describeError(error)}.`);
  }
  try {
    const res = await fetch(url, {
      headers: { Range: "bytes=0-0" },
      redirect: "manual",
      signal: AbortSignal.timeout(URL_TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (res.status === 200 || res.status === 206) {
      return pass(
        "signed_url",
        `A signed URL answers ${res.status} with ${res.headers.get("content-type") ?? "no type"}.`,
      );
    }
    return fail("signed_url", `A signed URL answers ${res.status} instead of the file.`);
  } catch (error) {
    return fail("signed_url", `A signed URL does not answer: ${describeError(error)}.`);
  }
}

/**
 * `GET /files/{id}/doctor`: checks a stored file end to end (its record is ready, its object exists, the object's
 * size and sniffed type match the record, a signed URL serves it) and says in words what is wrong. Each check runs
 * only when the ones it depends on passed, and says so when skipped.
 */
export async function diagnoseFile(
  ctx: CoreContext,
  storage: FileStorage,
  actor: Actor,
  fileId: string,
): Promise<FileDoctorReport> {
  const row = await loadVisibleFile(ctx.db, actor, fileId);
  const checks: Check[] = [];
  checks.push(
    row.status === "ready"
      ? pass("record", "The file is recorded as ready.")
      : fail(
          "record",
          row.status === "pending"
            ? "The upload was never finalized: POST /files/{fileId}/finalize after sending the bytes, or upload it again."
            : `The file is recorded as ${row.status}.`,
        ),
  );
  const key = row.status === "pending" ? null : row.storageKey;
  let size: number | null = null;
  if (key === null) {
    checks.push(
      skip("object_exists", "Not checked: the file has no stored object until its upload is finalized."),
    );
  } else {
    try {
      size = await storage.size(key);
      checks.push(
        size === null
          ? fail("object_exists", `No object is stored under the file's key in ${storage.kind} storage.`)
          : pass("object_exists", `An object is stored in ${storage.kind} storage.`),
      );
    } catch (error) {
      checks.push(
        fail("object_exists", `The ${storage.kind} storage could not be asked: ${describeError(error)}.`),
      );
    }
  }
  const stored = size !== null;
  if (!stored) {
    const why = "Not checked: there is no stored object.";
    checks.push(skip("size", why), skip("content_type", why), skip("signed_url", why));
  } else {
    checks.push(
      size === row.size
        ? pass("size", `The object is ${size} bytes, as recorded.`)
        : fail("size", `The object is ${size} bytes, but the file is recorded as ${row.size} bytes.`),
    );
    checks.push(await sniff(storage, row));
    checks.push(
      row.status === "ready"
        ? await answerOf(storage, row, ctx)
        : skip("signed_url", "Not checked: only a ready file is served."),
    );
  }
  const failed = checks.filter((c) => c.status === "failed");
  return {
    object: "file_doctor",
    fileId: row.id,
    storage: storage.kind,
    healthy: failed.length === 0,
    summary:
      failed.length === 0
        ? "The file is stored and served as recorded."
        : failed.map((c) => c.message).join(" "),
    checks,
  };
}
