import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";

/** A 1x1 PNG: the smallest real image the content check recognises. */
export const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
  "hex",
);
/** A 1x1 GIF. */
export const GIF = Buffer.from(
  "47494638396101000100800000ffffff00000021f90401000000002c00000000010001000002024401003b",
  "hex",
);
/** The start of an MP4 (an `ftyp` box of brand isom), padded. */
export const MP4 = Buffer.concat([
  Buffer.from("000000186674797069736f6d0000020069736f6d69736f32", "hex"),
  Buffer.alloc(64),
]);
/** A one-page PDF. */
export const PDF = Buffer.from(
  "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj " +
    "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
);
export const HTML = Buffer.from("<!doctype html><html><body><script>alert(1)</script></body></html>");

/** Sends a multipart upload the way a browser's form does. */
export function uploadFile(
  api: string,
  headers: Record<string, string>,
  file: { bytes: Uint8Array; filename: string; type: string },
  fields: Record<string, string> = {},
): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("file", new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.filename);
  // fetch sets the multipart type with its boundary; a JSON type from the caller's headers would hide it.
  const { "Content-Type": _json, ...rest } = headers;
  return fetch(`${api}/files`, { method: "POST", headers: rest, body: form });
}

export interface LocalS3 {
  env: Record<string, string>;
  close(): Promise<void>;
}

/** An S3-protocol server (s3rver) on loopback with one bucket, and the settings that point the app at it. */
export async function startLocalS3(bucket = "rubricon-test"): Promise<LocalS3> {
  const directory = await mkdtemp(join(tmpdir(), "rubricon-s3-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  return {
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_REGION: "us-east-1",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      S3_FORCE_PATH_STYLE: "true",
    },
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
