/** Carries `t=<unix seconds>,v1=<hex HMAC-SHA256>` over `<t>.<raw body>`. */
export const SIGNATURE_HEADER = "Service-Signature";

/** Sent only during the 24 hours after a secret rotation, signed with the new secret. */
export const SIGNATURE_NEXT_HEADER = "Service-Signature-Next";

export const EVENT_ID_HEADER = "Service-Event-Id";
export const EVENT_TYPE_HEADER = "Service-Event-Type";
export const DELIVERY_ID_HEADER = "Service-Delivery-Id";
export const USER_AGENT = "Rubricon-Webhooks/1.0";

/** How far, in seconds, a signature timestamp may be from the receiver's clock, either way. */
export const DEFAULT_TOLERANCE_SEC = 300;

export const SECRET_PREFIX = "whsec_";
