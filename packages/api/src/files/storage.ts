import { join } from "node:path";
import { type FileStorage, LocalFileStorage, S3FileStorage } from "@rubricon/core";
import type { Env } from "../config/env";

/** The file store the settings name: S3-compatible storage when `S3_BUCKET` is set, else `DATA_DIR/files`. */
export function createFileStorage(env: Env): FileStorage {
  if (env.s3) return new S3FileStorage(env.s3);
  return new LocalFileStorage(join(env.dataDir, "files"), env.baseUrl, env.encryptionKey);
}
