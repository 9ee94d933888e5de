import { utf8 } from "./bytes";

function subtleCrypto(): SubtleCrypto {
  const subtle = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (!subtle) {
    // Not a WebhookVerificationError: a receiver answering those with 400 would hide a broken deployment.
    throw new Error(
      "@rubricon/webhooks needs the Web Crypto API (globalThis.crypto.subtle). Node 18 exposes it only " +
        "with --experimental-global-webcrypto; Node 19+, Bun, Deno and edge runtimes have it built in.",
    );
  }
  return subtle;
}

/** The key is the UTF-8 bytes of the whole secret, `whsec_` prefix included, as the server signs. */
export async function hmacSha256(secret: string, message: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const subtle = subtleCrypto();
  const key = await subtle.importKey("raw", utf8(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await subtle.sign("HMAC", key, message));
}
