import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * HMAC-SHA256 signatures for the local store's URLs: the app serves them itself, so the signature, not a
 * credential, is what lets a browser or an uploader in. Every parameter that changes what the URL allows is signed.
 */
export class UrlSigner {
  private readonly key: Buffer;

  constructor(secret: string) {
    // A key of its own, derived from the server secret, so a signature made here is good for nothing else.
    this.key = createHmac("sha256", secret).update("rubricon:file-urls:v1").digest();
  }

  sign(fields: string[]): string {
    return createHmac("sha256", this.key).update(fields.join("\n")).digest("base64url");
  }

  verify(fields: string[], signature: string): boolean {
    const expected = Buffer.from(this.sign(fields));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
