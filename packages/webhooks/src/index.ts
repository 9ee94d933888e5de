export {
  DEFAULT_TOLERANCE_SEC,
  DELIVERY_ID_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  SIGNATURE_HEADER,
  SIGNATURE_NEXT_HEADER,
  USER_AGENT,
} from "./constants";
export { WebhookVerificationError, type WebhookVerificationReason } from "./errors";
export * from "./events";
export type { HeadersInput, HeadersLike, HeadersRecord } from "./header";
export {
  generateTestHeader,
  type Signature,
  type SignatureHeaders,
  type SignatureHeadersOptions,
  type SignOptions,
  sign,
  signatureHeaders,
  type TestHeaderOptions,
} from "./sign";
export { constructEvent, type RawBody, type VerifyOptions, verify, type WebhookSecret } from "./verify";
