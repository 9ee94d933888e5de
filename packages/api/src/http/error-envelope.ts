import type { ErrorEnvelope } from "@rubricon/contracts";
import { errorDocUrl, paramOf } from "@rubricon/contracts";
import { ApiError } from "@rubricon/core";
import { databaseUnavailableReason } from "@rubricon/db";
import { TRPCError } from "@trpc/server";
import { ZodError, type z } from "zod";

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const seg of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[seg];
  }
  return value;
}

function fromZod(error: ZodError, input: unknown): ApiError {
  const issue = error.issues[0] as z.core.$ZodIssue | undefined;
  if (!issue) return new ApiError("parameter_invalid", "The request is invalid.");
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] ?? "";
    const param = paramOf([...issue.path, key]);
    return new ApiError("parameter_unknown", `Received unknown parameter: ${param}.`, { param });
  }
  const param = paramOf(issue.path);
  // Zod leaves `input` off its issues, so whether the field was absent is read from the request itself.
  const missing =
    (issue.code === "invalid_type" || issue.code === "invalid_value") &&
    valueAt(input, issue.path) === undefined;
  if (missing) {
    return new ApiError("parameter_missing", `Missing required parameter: ${param}.`, { param });
  }
  const where = param ? `Invalid \`${param}\`: ` : "";
  return new ApiError("parameter_invalid", `${where}${issue.message}`, {
    param,
  });
}

/** A database outage is usually a failover or a restart: seconds, not minutes. */
export const DATABASE_RETRY_AFTER_S = 5;

/**
 * Whatever was thrown, as an ApiError; anything unexpected becomes a 500 that reveals nothing. `input` is the
 * request input that was validated, so a wrong-typed field is told apart from a missing one.
 */
export function toApiError(err: unknown, input?: unknown): { error: ApiError; unexpected: boolean } {
  let cause: unknown = err;
  if (err instanceof TRPCError) cause = err.cause ?? err;
  if (cause instanceof ApiError) return { error: cause, unexpected: false };
  // A response that fails its own schema is our fault (tRPC reports it as INTERNAL_SERVER_ERROR), not the caller's.
  const outputFailed = err instanceof TRPCError && err.code === "INTERNAL_SERVER_ERROR";
  if (cause instanceof ZodError && !outputFailed) return { error: fromZod(cause, input), unexpected: false };
  if (databaseUnavailableReason(cause) !== undefined) {
    return {
      error: new ApiError(
        "database_unavailable",
        "The database is not answering. Retry after the Retry-After seconds.",
        { headers: { "Retry-After": String(DATABASE_RETRY_AFTER_S) } },
      ),
      unexpected: false,
    };
  }
  if (cause instanceof TRPCError && cause.code === "BAD_REQUEST") {
    return {
      error: new ApiError("parameter_invalid", "The request is invalid."),
      unexpected: false,
    };
  }
  return {
    error: new ApiError(
      "internal_error",
      "An unexpected error occurred. Retry later, quoting the request id.",
    ),
    unexpected: true,
  };
}

/** The one function that shapes an error body. `baseUrl` is the server's public origin, for `doc_url`. */
export function toErrorEnvelope(error: ApiError, requestId: string, baseUrl: string): ErrorEnvelope {
  return {
    error: {
      message: error.message,
      type: error.type,
      code: error.code,
      ...(error.param !== undefined ? { param: error.param } : {}),
      ...(error.details !== undefined ? { details: error.details } : {}),
      doc_url: errorDocUrl(baseUrl, error.code),
      request_id: requestId,
    },
  };
}
