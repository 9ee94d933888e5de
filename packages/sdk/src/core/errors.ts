/** The `error.type` values of the API's error envelope. */
export type ApiErrorType =
  | "authentication_error"
  | "authorization_error"
  | "invalid_request_error"
  | "not_found_error"
  | "rate_limit_error"
  | "api_error";

/** Types of errors raised by the client itself, when there is no response to read one from. */
export type ClientErrorType = "connection_error" | "timeout_error" | "abort_error";

/** The `error` object of an error response. */
export interface ErrorBody {
  type: ApiErrorType | (string & {});
  message: string;
  code?: string;
  param?: string;
  doc_url?: string;
  request_id?: string;
  details?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface RubriconErrorInit {
  message: string;
  type: ApiErrorType | ClientErrorType | (string & {});
  code?: string | undefined;
  param?: string | undefined;
  docUrl?: string | undefined;
  details?: Record<string, unknown> | undefined;
  requestId?: string | undefined;
  status?: number | undefined;
  headers?: Headers | undefined;
  raw?: unknown;
  cause?: unknown;
}

/**
 * Every error the client throws. Branch on the subclass (or `type`) first and on `code` second, as the API
 * contract advises; new codes may appear at any time.
 */
export class RubriconError extends Error {
  /** `error.type` of the response, or a client-side type when no response arrived. */
  readonly type: RubriconErrorInit["type"];
  /** `error.code`: the machine-readable reason, e.g. `evaluation_not_found`. */
  readonly code: string | undefined;
  /** `error.param`: the request field at fault, for invalid requests. */
  readonly param: string | undefined;
  readonly docUrl: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  /** `X-Request-Id` of the response (equal to `error.request_id`); quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** HTTP status, when a response arrived. */
  readonly status: number | undefined;
  readonly headers: Headers | undefined;
  /** The parsed response body (or its text when it was not JSON). */
  readonly raw: unknown;

  constructor(init: RubriconErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.type = init.type;
    this.code = init.code;
    this.param = init.param;
    this.docUrl = init.docUrl;
    this.details = init.details;
    this.requestId = init.requestId;
    this.status = init.status;
    this.headers = init.headers;
    this.raw = init.raw;
  }

  /** The error for a non-2xx response, of the class its `error.type` (or, failing that, its status) names. */
  static fromResponse(status: number, headers: Headers, body: unknown): RubriconError {
    const error = errorBody(body);
    const requestId = error?.request_id ?? headers.get("x-request-id") ?? undefined;
    const init: RubriconErrorInit = {
      message: error?.message ?? fallbackMessage(status, body),
      type: error?.type ?? typeForStatus(status),
      code: error?.code,
      param: error?.param,
      docUrl: error?.doc_url,
      details: error?.details,
      requestId,
      status,
      headers,
      raw: body,
    };
    const Class = CLASS_BY_TYPE[init.type] ?? classForStatus(status);
    return new Class(init);
  }
}

/** 401: credentials missing, malformed, expired or revoked. */
export class AuthenticationError extends RubriconError {}
/** 403: authenticated, but lacking a scope, a plan or team permission. */
export class AuthorizationError extends RubriconError {}
/** 400, 405, 409, 410, 413, 415: the request cannot be served as sent. */
export class InvalidRequestError extends RubriconError {}
/** 404: no such resource, or the caller may not see it. */
export class NotFoundError extends RubriconError {}
/** 429: rate limit or monthly quota exceeded. */
export class RateLimitError extends RubriconError {
  /** Seconds the server asked to wait (`Retry-After`); absent when a monthly quota ran out. */
  get retryAfter(): number | undefined {
    const value = this.headers?.get("retry-after");
    const seconds = value === null || value === undefined ? Number.NaN : Number(value);
    return Number.isFinite(seconds) ? seconds : undefined;
  }
}
/** 5xx: the server failed; such requests are retried before this is thrown. */
export class APIError extends RubriconError {}
/** The request never got a response: DNS, refused or reset connection, TLS. */
export class APIConnectionError extends RubriconError {}
/** An attempt took longer than the `timeout`. */
export class APITimeoutError extends APIConnectionError {}
/** The caller's `AbortSignal` fired. */
export class APIUserAbortError extends RubriconError {}

type ErrorClass = new (init: RubriconErrorInit) => RubriconError;

const CLASS_BY_TYPE: Record<string, ErrorClass | undefined> = {
  authentication_error: AuthenticationError,
  authorization_error: AuthorizationError,
  invalid_request_error: InvalidRequestError,
  not_found_error: NotFoundError,
  rate_limit_error: RateLimitError,
  api_error: APIError,
};

function classForStatus(status: number): ErrorClass {
  if (status === 401) return AuthenticationError;
  if (status === 403) return AuthorizationError;
  if (status === 404) return NotFoundError;
  if (status === 429) return RateLimitError;
  if (status >= 500) return APIError;
  if (status >= 400) return InvalidRequestError;
  return RubriconError;
}

function typeForStatus(status: number): ApiErrorType {
  if (status === 401) return "authentication_error";
  if (status === 403) return "authorization_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 400 && status < 500) return "invalid_request_error";
  return "api_error";
}

function errorBody(body: unknown): ErrorBody | undefined {
  if (typeof body !== "object" || body === null || !("error" in body)) return undefined;
  const error = (body as { error: unknown }).error;
  if (typeof error !== "object" || error === null) return undefined;
  const e = error as Partial<ErrorBody>;
  return typeof e.type === "string" && typeof e.message === "string" ? (e as ErrorBody) : undefined;
}

function fallbackMessage(status: number, body: unknown): string {
  const text = typeof body === "string" ? body.trim().slice(0, 200) : "";
  return text ? `HTTP ${status}: ${text}` : `HTTP ${status} without an error body.`;
}
