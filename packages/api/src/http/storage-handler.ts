import {
  ApiError,
  assertUploadPending,
  inlineDisposition,
  LOCAL_STORAGE_PREFIX,
  LocalFileStorage,
} from "@rubricon/core";
import { AttemptThrottle } from "../limits/attempts";
import type { AppServices } from "../request/context";
import type { EntryPoint } from "../request/exchange";
import { jsonReply } from "./reply";

function uploadTooLarge(size: number): ApiError {
  return new ApiError(
    "file_too_large",
    `The upload is larger than the ${size} bytes declared for this file.`,
    { details: { limit: size }, headers: { Connection: "close" } },
  );
}

/** Served files may not run anything on our origin; a PDF needs the browser's viewer, which a sandbox blocks. */
const NO_ACTIVE_CONTENT = "default-src 'none'; img-src 'self'; media-src 'self'; sandbox";

/**
 * The local file store's signed URLs (`/api/storage/{teamId}/{fileId}?op=...&exp=...&sig=...`): GET serves a
 * file, PUT takes a direct upload of exactly the signed size. The HMAC and the expiry are the only credential,
 * as with a presigned S3 URL; with S3 configured this entry answers 404 and clients talk to the bucket. Links that
 * fail the check (forged, tampered or expired) are paced per client address.
 */
export function createStorageEntry(services: AppServices): EntryPoint {
  const attempts = new AttemptThrottle(services);
  return {
    prefix: LOCAL_STORAGE_PREFIX,
    async handle(ex) {
      const storage = services.storage;
      const key = ex.url.pathname.slice(LOCAL_STORAGE_PREFIX.length + 1);
      if (!(storage instanceof LocalFileStorage) || key === "")
        throw new ApiError(
          "route_not_found",
          `Unrecognized request URL (${ex.req.method} ${ex.url.pathname}).`,
        );
      const method = ex.req.method.toUpperCase();
      if (method !== "GET" && method !== "HEAD" && method !== "PUT") {
        ex.headers.Allow = "GET, HEAD, PUT";
        throw new ApiError("method_not_allowed", `${method} is not allowed here; use GET or PUT.`);
      }
      ex.headers["Cache-Control"] = "no-store";
      const address = ex.ctx.clientIp;
      await attempts.check("signed-url", null, address, ex.requestId);
      let signed: ReturnType<LocalFileStorage["verify"]>;
      try {
        signed = storage.verify(key, ex.url.searchParams, services.clock.now());
      } catch (err) {
        if (err instanceof ApiError) await attempts.record("signed-url", null, address, ex.requestId);
        throw err;
      }
      const wanted = method === "PUT" ? "put" : "get";
      if (signed.op !== wanted) {
        throw new ApiError(
          "signed_url_invalid",
          `This URL allows ${signed.op.toUpperCase()}, not ${method}.`,
        );
      }

      if (signed.op === "put") {
        const sent = (ex.req.headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase();
        if (sent !== signed.contentType) {
          throw new ApiError(
            "signed_url_invalid",
            `Send the upload with \`Content-Type: ${signed.contentType}\`, the type this URL was made for.`,
          );
        }
        await assertUploadPending(services.db, key);
        const declared = ex.req.headers.get("content-length");
        if (declared !== null && Number(declared) > signed.size) throw uploadTooLarge(signed.size);
        // `receive` counts the bytes against the signed size, so a body without a declared length is refused the
        // moment it passes it.
        const received = await storage.receive(key, ex.req.bodyChunks(Number.MAX_SAFE_INTEGER), signed.size);
        if (received !== signed.size) {
          await storage.delete(key);
          throw new ApiError(
            "file_size_mismatch",
            `The upload has ${received} bytes, but ${signed.size} were declared for this file; PUT all of them.`,
            { details: { declaredSize: signed.size, size: received } },
          );
        }
        return jsonReply(ex, 200, { object: "file_upload", received: true });
      }

      const size = await storage.size(key);
      if (size === null) throw ApiError.notFound("file_not_found", "The file is no longer stored.");
      return {
        status: 200,
        headers: {
          ...ex.headers,
          "Content-Type": signed.contentType,
          "Content-Length": String(size),
          "Content-Disposition": inlineDisposition(signed.filename),
          // The URL expires within minutes; a browser may keep what it loaded for a minute, no shared cache may.
          "Cache-Control": "private, max-age=60",
          ...(signed.contentType === "application/pdf"
            ? {}
            : { "Content-Security-Policy": NO_ACTIVE_CONTENT }),
        },
        body: method === "HEAD" ? null : storage.openRead(key),
      };
    },
  };
}
