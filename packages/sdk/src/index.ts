export {
  type CallOptions,
  DEFAULT_BASE_URL,
  DEFAULT_TIMEOUT_MS,
  Rubricon,
  type RubriconOptions,
  type StreamOptions,
} from "./client";
export {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  type ApiErrorType,
  AuthenticationError,
  AuthorizationError,
  type ClientErrorType,
  type ErrorBody,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  RubriconError,
} from "./core/errors";
export { type ListPage, type PageItem, PagePromise } from "./core/pagination";
export type { RequestOptions, StreamRequestOptions } from "./core/request-options";
export { EventStream, parseServerSentEvents, type ServerSentEvent } from "./core/sse";
export type { Fetch } from "./core/transport";
export { SERVICE_VERSION } from "./generated/api-version";
export type { components, paths } from "./generated/openapi";
// The table the client is built from: one row per route with its method's name, for tools that show calls.
export { type OperationSpec, operations } from "./generated/operations";
export type * from "./generated/resources";
export { VERSION } from "./version";
