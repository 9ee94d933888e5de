import { WEBHOOK_SECRET_PREFIX } from "@rubricon/contracts";
import type { webhookEndpoints } from "@rubricon/db";
import { decryptSecret, encryptSecret, randomToken, sha256Hex } from "../../kernel";

type EndpointSecrets = Pick<
  typeof webhookEndpoints.$inferSelect,
  "secretSealed" | "previousSecretSealed" | "previousSecretExpiresAt"
>;

export function newSigningSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomToken(32)}`;
}

/** The columns a new secret is stored in: its hash (what the contract promises) and a sealed copy to sign with. */
export function storedSecret(secret: string, encryptionKey: string) {
  return { secretHash: sha256Hex(secret), secretSealed: encryptSecret(secret, encryptionKey) };
}

/**
 * The secrets a delivery is signed with now: the current one, and during the 24 hours after a rotation also the
 * previous one, which then signs `Service-Signature` while the current one signs `Service-Signature-Next`.
 */
export function signingSecrets(
  row: EndpointSecrets,
  encryptionKey: string,
  now: Date,
): { secret: string; previousSecret: string | null } {
  const previousValid =
    row.previousSecretSealed !== null &&
    row.previousSecretExpiresAt !== null &&
    row.previousSecretExpiresAt.getTime() > now.getTime();
  return {
    secret: decryptSecret(row.secretSealed, encryptionKey),
    previousSecret: previousValid ? decryptSecret(row.previousSecretSealed!, encryptionKey) : null,
  };
}
