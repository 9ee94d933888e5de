import { SECRET_PREFIX } from "./constants";
import type { WebhookVerificationReason } from "./errors";

export interface SecretProblem {
  reason: Extract<WebhookVerificationReason, "secret_whitespace" | "invalid_secret">;
  message: string;
}

function describeWhitespace(char: string): string {
  switch (char) {
    case "\n":
      return "a newline (\\n)";
    case "\r":
      return "a carriage return (\\r)";
    case "\t":
      return "a tab";
    case " ":
      return "a space";
    default:
      return `whitespace (U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")})`;
  }
}

/**
 * Checks the shape of a secret without ever quoting it, since these messages end up in logs. `label` names
 * which secret is meant when several are given.
 */
export function findSecretProblem(secret: unknown, label: string): SecretProblem | undefined {
  if (typeof secret !== "string") {
    const got = secret === undefined || secret === null ? String(secret) : `a ${typeof secret}`;
    return {
      reason: "invalid_secret",
      message: `${label} is ${got}, not a string; is the environment variable that holds it set?`,
    };
  }
  const leading = /^\s/.exec(secret)?.[0];
  const trailing = /\s$/.exec(secret)?.[0];
  if (leading !== undefined || trailing !== undefined) {
    const where =
      leading !== undefined
        ? `starts with ${describeWhitespace(leading)}`
        : `ends with ${describeWhitespace(trailing!)}`;
    return {
      reason: "secret_whitespace",
      message:
        `${label} ${where}. Signatures are computed over the exact secret, so it could never match; ` +
        "remove the surrounding whitespace (often a newline from a .env file or secret manager).",
    };
  }
  if (secret === "") {
    return { reason: "invalid_secret", message: `${label} is empty.` };
  }
  if (!secret.startsWith(SECRET_PREFIX) || secret.length === SECRET_PREFIX.length) {
    return {
      reason: "invalid_secret",
      message:
        `${label} is not an endpoint signing secret: those start with "${SECRET_PREFIX}" followed by the ` +
        "key. Use the whole string the API returned for the endpoint, prefix included.",
    };
  }
  return undefined;
}
