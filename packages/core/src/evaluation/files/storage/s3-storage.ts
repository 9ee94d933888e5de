import { createReadStream } from "node:fs";
import type { S3Client } from "@aws-sdk/client-s3";
import {
  type FileStorage,
  inlineDisposition,
  type SignedGetOptions,
  type SignedPutOptions,
} from "./file-storage";

export interface S3StorageSettings {
  bucket: string;
  endpoint: string | undefined;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
}

function secondsUntil(expiresAt: Date, now: Date): number {
  return Math.max(1, Math.round((expiresAt.getTime() - now.getTime()) / 1000));
}

/**
 * S3-compatible object storage (AWS S3, MinIO, R2, ...) for deployments with several app instances. Clients
 * download and upload straight from and to the bucket with presigned URLs; the app never proxies the bytes.
 */
interface S3Sdk {
  s3: typeof import("@aws-sdk/client-s3");
  getSignedUrl: typeof import("@aws-sdk/s3-request-presigner").getSignedUrl;
  client: S3Client;
}

/** The AWS SDK is large (about 14 MB resident): it is loaded on the first file operation, not at start. */
async function loadSdk(settings: S3StorageSettings): Promise<S3Sdk> {
  const [s3, presigner] = await Promise.all([
    import("@aws-sdk/client-s3"),
    import("@aws-sdk/s3-request-presigner"),
  ]);
  return {
    s3,
    getSignedUrl: presigner.getSignedUrl,
    client: new s3.S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.accessKeyId && settings.secretAccessKey
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}),
      // Checksums only where the protocol needs them: presigned PUTs stay plain, which every S3-compatible
      // server accepts.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    }),
  };
}

export class S3FileStorage implements FileStorage {
  readonly kind = "s3" as const;
  private readonly bucket: string;
  private sdkLoaded: Promise<S3Sdk> | undefined;

  constructor(private readonly settings: S3StorageSettings) {
    this.bucket = settings.bucket;
  }

  private sdk(): Promise<S3Sdk> {
    this.sdkLoaded ??= loadSdk(this.settings);
    return this.sdkLoaded;
  }

  async putFile(key: string, sourcePath: string, meta: { contentType: string; size: number }): Promise<void> {
    const { s3, client } = await this.sdk();
    await client.send(
      new s3.PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: createReadStream(sourcePath),
        ContentLength: meta.size,
        ContentType: meta.contentType,
      }),
    );
  }

  async putBytes(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    const { s3, client } = await this.sdk();
    await client.send(
      new s3.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: contentType }),
    );
  }

  async size(key: string): Promise<number | null> {
    const { s3, client } = await this.sdk();
    try {
      const head = await client.send(new s3.HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return head.ContentLength ?? null;
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404) return null;
      throw err;
    }
  }

  async readStart(key: string, count: number): Promise<Uint8Array> {
    const { s3, client } = await this.sdk();
    const got = await client.send(
      new s3.GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=0-${count - 1}` }),
    );
    const bytes = (await got.Body?.transformToByteArray()) ?? new Uint8Array(0);
    // A server that ignores Range answers the whole object; only the start is wanted.
    return bytes.subarray(0, count);
  }

  async delete(key: string): Promise<void> {
    const { s3, client } = await this.sdk();
    await client.send(new s3.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async promote(fromKey: string, toKey: string): Promise<void> {
    const { s3, client } = await this.sdk();
    await client.send(
      new s3.CopyObjectCommand({
        Bucket: this.bucket,
        Key: toKey,
        CopySource: `${this.bucket}/${fromKey.split("/").map(encodeURIComponent).join("/")}`,
      }),
    );
    await this.delete(fromKey);
  }

  async signedGetUrl(key: string, opts: SignedGetOptions): Promise<string> {
    const { s3, client, getSignedUrl } = await this.sdk();
    return getSignedUrl(
      client,
      new s3.GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ResponseContentType: opts.contentType,
        ResponseContentDisposition: inlineDisposition(opts.filename),
      }),
      { expiresIn: secondsUntil(opts.expiresAt, opts.now) },
    );
  }

  async signedPutUrl(key: string, opts: SignedPutOptions) {
    const { s3, client, getSignedUrl } = await this.sdk();
    const url = await getSignedUrl(
      client,
      new s3.PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: opts.contentType }),
      { expiresIn: secondsUntil(opts.expiresAt, opts.now), signableHeaders: new Set(["content-type"]) },
    );
    return { url, headers: { "Content-Type": opts.contentType } };
  }
}
