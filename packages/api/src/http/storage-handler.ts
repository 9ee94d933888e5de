import { ApiError, inlineDisposition, LOCAL_STORAGE_PREFIX, LocalFileStorage } from "@rubricon/core";
import { AttemptThrottle } from "../limits/attempts";
import type { AppServices } from "../trpc/context";
import { type EntryPoint, jsonReply } from "./pipeline";

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
        await storage.receive(key, ex.req.bodyChunks(signed.size), signed.size);
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
