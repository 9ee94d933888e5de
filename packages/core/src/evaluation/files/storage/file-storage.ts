/** Where a file's bytes live. Keys are opaque paths such as `team_x/file_y`; the database holds the rest. */
export interface FileStorage {
  readonly kind: "local" | "s3";
  /** Stores the file at `sourcePath` (a staged upload) under `key`. */
  putFile(key: string, sourcePath: string, meta: { contentType: string; size: number }): Promise<void>;
  /** Stores bytes made by the server (a screenshot) under `key`. */
  putBytes(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The stored object's size, or null when there is none. */
  size(key: string): Promise<number | null>;
  /** Up to the first `count` bytes of the object (enough to read its real type). */
  readStart(key: string, count: number): Promise<Uint8Array>;
  delete(key: string): Promise<void>;
  /**
   * Moves a direct upload from the key its URL writes to onto its final key, so a URL still valid after the file
   * was checked can only ever touch the staging copy.
   */
  promote(fromKey: string, toKey: string): Promise<void>;
  /** A URL that serves the object until `expiresAt`, with this type and download name. */
  signedGetUrl(key: string, opts: SignedGetOptions): Promise<string>;
  /** A URL the client PUTs exactly `size` bytes of `contentType` to, with the headers it must send. */
  signedPutUrl(
    key: string,
    opts: SignedPutOptions,
  ): Promise<{ url: string; headers: Record<string, string> }>;
}

export interface SignedGetOptions {
  contentType: string;
  filename: string;
  expiresAt: Date;
  now: Date;
}

export interface SignedPutOptions {
  contentType: string;
  size: number;
  expiresAt: Date;
  now: Date;
}

/** `inline; filename=...` with the name made safe for a header (RFC 6266 with an RFC 5987 UTF-8 form). */
export function inlineDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
