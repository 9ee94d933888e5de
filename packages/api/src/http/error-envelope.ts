import type { ErrorEnvelope } from "@rubricon/contracts";
import { ApiError } from "@rubricon/core";
import { TRPCError } from "@trpc/server";
import { ZodError, type z } from "zod";

/** Renders a zod issue path as the request parameter name clients know, e.g. `designUrls[0].url`. */
export function paramOf(path: readonly PropertyKey[]): string | undefined {
  if (path.length === 0) return undefined;
  return path.reduce<string>((acc, seg) => (typeof seg === "number" ? `${acc}[${seg}]` : acc ? `${acc}.${String(seg)}` : String(seg)), "");
}

function fromZod(error: ZodError): ApiError {
  const issue = error.issues[0] as z.core.$ZodIssue | undefined;
  if (!issue) return new ApiError("parameter_invalid", "The request is invalid.");
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] ?? "";
    const param = paramOf([...issue.path, key]);
    return new ApiError("parameter_unknown", `Received unknown parameter: ${param}.`, { param });
  }
  const param = paramOf(issue.path);
  const missing = issue.code === "invalid_type" && (issue as { input?: unknown }).input === undefined;
  if (missing) {
    return new ApiError("parameter_missing", `Missing required parameter: ${param}.`, { param });
  }
  const where = param ? `Invalid \`${param}\`: ` : "";
  return new ApiError("parameter_invalid", `${where}${issue.message}`, { param });
}

/** Whatever was thrown, as an ApiError; anything unexpected becomes a 500 that reveals nothing. */
export function toApiError(err: unknown): { error: ApiError; unexpected: boolean } {
  let cause: unknown = err;
  if (err instanceof TRPCError) cause = err.cause ?? err;
  if (cause instanceof ApiError) return { error: cause, unexpected: false };
  if (cause instanceof ZodError) return { error: fromZod(cause), unexpected: false };
  if (cause instanceof TRPCError && cause.code === "BAD_REQUEST") {
    return { error: new ApiError("parameter_invalid", "The request is invalid."), unexpected: false };
  }
  return { error: new ApiError("internal_error", "An unexpected error occurred. Retry later, quoting the request id."), unexpected: true };
}

/** The one function that shapes an error body. */
export function toErrorEnvelope(error: ApiError, requestId: string): ErrorEnvelope {
  return {
    error: {
      message: error.message,
      type: error.type,
      code: error.code,
      ...(error.param !== undefined ? { param: error.param } : {}),
      ...(error.details !== undefined ? { details: error.details } : {}),
      request_id: requestId,
    },
  };
}
