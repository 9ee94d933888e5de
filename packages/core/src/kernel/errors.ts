import { ERROR_CODES, type ErrorCode } from "@rubricon/contracts";

export interface ApiErrorOptions {
  param?: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** The one error a domain function throws; the transport turns it into the spec's envelope. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly type: (typeof ERROR_CODES)[ErrorCode]["type"];
  readonly status: number;
  readonly param?: string;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, opts: ApiErrorOptions = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.type = ERROR_CODES[code].type;
    this.status = ERROR_CODES[code].status;
    this.param = opts.param;
    this.details = opts.details;
    this.headers = opts.headers;
  }

  static invalid(param: string, message: string, code: ErrorCode = "parameter_invalid"): ApiError {
    return new ApiError(code, message, { param });
  }

  static notFound(code: ErrorCode, message = "No such resource."): ApiError {
    return new ApiError(code, message);
  }

  static forbidden(code: ErrorCode, message: string, details?: Record<string, unknown>): ApiError {
    return new ApiError(code, message, { details });
  }
}
