import { paramOf } from "@rubricon/contracts";
import { TRPCClientError } from "@trpc/client";
import { ApiError } from "./api/rest";

interface ApiErrorData {
  httpStatus?: number;
  code?: string;
  apiError?: { code: string; type: string; param?: string };
}

interface ZodIssueLike {
  message?: string;
  path?: (string | number)[];
}

/** Both transports' failures in one shape: tRPC's error data, or the REST envelope read by `lib/api`. */
function errorData(error: unknown): ApiErrorData | undefined {
  if (error instanceof TRPCClientError) return (error.data ?? undefined) as ApiErrorData | undefined;
  if (error instanceof ApiError) {
    return {
      httpStatus: error.status,
      ...(error.code && error.type
        ? { apiError: { code: error.code, type: error.type, ...(error.param ? { param: error.param } : {}) } }
        : {}),
    };
  }
  return undefined;
}

/** tRPC reports input validation failures as the JSON of zod's issues; the first one is what the user needs. */
function firstZodIssue(message: string): ZodIssueLike | undefined {
  if (!message.startsWith("[")) return undefined;
  try {
    const issues = JSON.parse(message) as ZodIssueLike[];
    return Array.isArray(issues) ? issues[0] : undefined;
  } catch {
    return undefined;
  }
}

/** The session is missing or expired: the dashboard sends the visitor to sign in. */
export function isUnauthenticated(error: unknown): boolean {
  const data = errorData(error);
  return (
    data?.httpStatus === 401 ||
    data?.code === "UNAUTHORIZED" ||
    data?.apiError?.type === "authentication_error"
  );
}

/** The API's error code (e.g. `rating_already_exists`), for the few errors a page handles by itself. */
export function errorCode(error: unknown): string | undefined {
  return errorData(error)?.apiError?.code;
}

/** The HTTP status of a failed call (0: the server was not reached), when it is known. */
export function errorStatus(error: unknown): number | undefined {
  return errorData(error)?.httpStatus;
}

/** The request parameter an error is about (e.g. `designUrls[0].url`), when there is one. */
export function errorParam(error: unknown): string | undefined {
  const param = errorData(error)?.apiError?.param;
  if (param) return param;
  if (error instanceof Error) {
    const issue = firstZodIssue(error.message);
    if (issue?.path) return paramOf(issue.path);
  }
  return undefined;
}

/** A message fit for the user: the API's own message, or a generic one when there is none. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error && error.message) {
    const issue = firstZodIssue(error.message);
    if (issue?.message) {
      const param = issue.path ? paramOf(issue.path) : undefined;
      return param ? `Invalid \`${param}\`: ${issue.message}` : issue.message;
    }
    return error.message;
  }
  return "Something went wrong. Please try again.";
}
