import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { copyFile, mkdir, open, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ApiError } from "../../../kernel";
import type { FileStorage, SignedGetOptions, SignedPutOptions } from "./file-storage";
import { UrlSigner } from "./url-signature";

/** Where the app serves the local store's signed URLs. */
export const LOCAL_STORAGE_PREFIX = "/api/storage";

const KEY = /^[A-Za-z0-9_-]{1,100}\/[A-Za-z0-9_-]{1,100}$/;

export interface SignedGet {
  op: "get";
  contentType: string;
  filename: string;
}
export interface SignedPut {
  op: "put";
  contentType: string;
  size: number;
}

function refused(message: string): ApiError {
  return new ApiError("signed_url_invalid", message);
}

/**
 * Files on the local disk under `DATA_DIR/files` (the embedded default). Signed URLs point at the app itself
 * (`/api/storage/{key}`), which checks the HMAC and the expiry before it serves or accepts bytes.
 */
export class LocalFileStorage implements FileStorage {
  readonly kind = "local" as const;
  private readonly signer: UrlSigner;

  constructor(
    readonly root: string,
    private readonly baseUrl: string,
    secret: string,
  ) {
    this.signer = new UrlSigner(secret);
  }

  /** The object's path on disk; a key that could leave the root is refused. */
  pathOf(key: string): string {
    if (!KEY.test(key)) throw refused("This storage URL does not name a file.");
    return join(this.root, key);
  }

  async putFile(key: string, sourcePath: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const staged = `${target}.${randomBytes(6).toString("hex")}.part`;
    // Copy then rename: the object appears whole or not at all, even across file systems.
    await copyFile(sourcePath, staged);
    await rename(staged, target);
  }

  async putBytes(key: string, bytes: Uint8Array): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const staged = `${target}.${randomBytes(6).toString("hex")}.part`;
    const handle = await open(staged, "w");
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
    await rename(staged, target);
  }

  /**
   * Writes an upload's body to `key` as it arrives, refusing it (413) as soon as it passes `maxBytes`; a refused
   * or broken upload leaves nothing behind.
   */
  async receive(key: string, body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<number> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const staged = `${target}.${randomBytes(6).toString("hex")}.part`;
    let size = 0;
    async function* counted() {
      for await (const chunk of body) {
        size += chunk.byteLength;
        if (size > maxBytes)
          throw new ApiError(
            "file_too_large",
            `The upload is larger than the ${maxBytes} bytes declared for this file.`,
            { details: { limit: maxBytes }, headers: { Connection: "close" } },
          );
        yield chunk;
      }
    }
    try {
      await pipeline(counted(), createWriteStream(staged));
      await rename(staged, target);
      return size;
    } catch (err) {
      await rm(staged, { force: true });
      throw err;
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.pathOf(key))).size;
    } catch {
      return null;
    }
  }

  async readStart(key: string, count: number): Promise<Uint8Array> {
    const handle = await open(this.pathOf(key), "r");
    try {
      const buffer = Buffer.alloc(count);
      const { bytesRead } = await handle.read(buffer, 0, count, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  async promote(fromKey: string, toKey: string): Promise<void> {
    await rename(this.pathOf(fromKey), this.pathOf(toKey));
  }

  openRead(key: string): Readable {
    return createReadStream(this.pathOf(key));
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  private url(key: string, params: Record<string, string>, fields: string[]): string {
    const query = new URLSearchParams({ ...params, sig: this.signer.sign(fields) });
    return `${this.baseUrl}${LOCAL_STORAGE_PREFIX}/${key}?${query}`;
  }

  async signedGetUrl(key: string, opts: SignedGetOptions): Promise<string> {
    this.pathOf(key);
    const exp = String(Math.floor(opts.expiresAt.getTime() / 1000));
    return this.url(key, { op: "get", exp, ct: opts.contentType, fn: opts.filename }, [
      "get",
      key,
      exp,
      opts.contentType,
      opts.filename,
    ]);
  }

  async signedPutUrl(key: string, opts: SignedPutOptions) {
    this.pathOf(key);
    const exp = String(Math.floor(opts.expiresAt.getTime() / 1000));
    const size = String(opts.size);
    return {
      url: this.url(key, { op: "put", exp, ct: opts.contentType, size }, [
        "put",
        key,
        exp,
        opts.contentType,
        size,
      ]),
      headers: { "Content-Type": opts.contentType },
    };
  }

  /** What a signed URL allows, once its signature and expiry check out; anything else is 403. */
  verify(key: string, query: URLSearchParams, now: Date): SignedGet | SignedPut {
    this.pathOf(key);
    const op = query.get("op");
    const exp = query.get("exp") ?? "";
    const ct = query.get("ct") ?? "";
    const sig = query.get("sig") ?? "";
    const fields =
      op === "get"
        ? ["get", key, exp, ct, query.get("fn") ?? ""]
        : op === "put"
          ? ["put", key, exp, ct, query.get("size") ?? ""]
          : null;
    if (!fields || !this.signer.verify(fields, sig))
      throw refused("This storage URL's signature is not valid.");
    if (!/^\d{1,12}$/.test(exp) || Number(exp) * 1000 <= now.getTime())
      throw refused("This storage URL has expired; ask the API for a new one.");
    if (op === "get") return { op, contentType: ct, filename: query.get("fn") ?? "" };
    return { op: "put", contentType: ct, size: Number(query.get("size")) };
  }
}
