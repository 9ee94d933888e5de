export type WebhookVerificationReason =
  | "invalid_body"
  | "missing_header"
  | "malformed_header"
  | "timestamp_outside_tolerance"
  | "secret_whitespace"
  | "invalid_secret"
  | "no_matching_signature";

/**
 * Thrown when a delivery must not be trusted. Answer it with a 4xx; `reason` is stable across versions, the
 * message is for people and may change.
 */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
