import { APICallError, NoObjectGeneratedError, RetryError } from "ai";

export const PROVIDER_FAILURES = [
  "provider_auth",
  "provider_rate_limited",
  "model_not_found",
  "provider_unreachable",
  "provider_error",
  "timeout",
  "invalid_reply",
] as const;
export type ProviderFailureCode = (typeof PROVIDER_FAILURES)[number];

/**
 * What went wrong talking to a model, in words safe to show and store: never the provider's own message, which
 * can quote part of the key (OpenAI's "Incorrect API key provided: sk-ab***wxyz").
 */
export interface ProviderFailure {
  code: ProviderFailureCode;
  message: string;
  /** The provider's HTTP status, when it answered. */
  status: number | null;
  retryAfterSeconds: number | null;
}

function headerOf(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const found = Object.keys(headers).find((key) => key.toLowerCase() === name);
  return found ? headers[found] : undefined;
}

/** `retry-after` (seconds or an HTTP date), `retry-after-ms`, or Google's `RetryInfo.retryDelay` ("17s"). */
export function retryAfterOf(error: APICallError, now = Date.now()): number | null {
  const ms = Number(headerOf(error.responseHeaders, "retry-after-ms"));
  if (Number.isFinite(ms) && ms > 0) return Math.ceil(ms / 1000);
  const header = headerOf(error.responseHeaders, "retry-after");
  if (header !== undefined) {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
    const date = Date.parse(header);
    if (Number.isFinite(date)) return Math.max(0, Math.ceil((date - now) / 1000));
  }
  const delay = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(error.responseBody ?? "");
  if (delay?.[1]) return Math.ceil(Number(delay[1]));
  return null;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = current.cause;
  }
  return undefined;
}

function fromCall(error: APICallError): ProviderFailure {
  const status = error.statusCode ?? null;
  const body = error.responseBody ?? "";
  const failure = (code: ProviderFailureCode, message: string, retryAfterSeconds: number | null = null) => ({
    code,
    message,
    status,
    retryAfterSeconds,
  });
  if (status === null) {
    if (isAbort(error.cause)) return failure("timeout", "The provider did not answer in time.");
    return failure("provider_unreachable", "The provider could not be reached at its address.");
  }
  // Gemini answers a wrong key with 400 INVALID_ARGUMENT and the reason API_KEY_INVALID.
  if (status === 401 || status === 403 || /API_KEY_INVALID|API_KEY_SERVICE_BLOCKED/.test(body)) {
    return failure(
      "provider_auth",
      status === 403 && !/API_KEY/.test(body)
        ? "The provider refused this key access to the model (HTTP 403)."
        : `The provider rejected the API key (HTTP ${status}). Check that it is current and belongs to this provider.`,
    );
  }
  if (status === 429) {
    const retryAfter = retryAfterOf(error);
    return failure(
      "provider_rate_limited",
      `The provider is rate limiting this key${retryAfter !== null ? `; retry in ${retryAfter} s` : ""}.`,
      retryAfter,
    );
  }
  if (status === 404)
    return failure(
      "model_not_found",
      "The provider does not know this model, or this address serves no such API.",
    );
  if (status >= 200 && status < 300)
    return failure("provider_error", "The provider's reply could not be read.");
  if (status >= 500) return failure("provider_error", `The provider failed to answer (HTTP ${status}).`);
  return failure("provider_error", `The provider refused the request (HTTP ${status}).`);
}

/** Maps anything a model call threw to a failure a person can act on. */
export function classifyProviderError(error: unknown, options: { timedOut?: boolean } = {}): ProviderFailure {
  const base = { status: null, retryAfterSeconds: null };
  if (options.timedOut || isAbort(error)) {
    return { ...base, code: "timeout", message: "The provider did not answer in time." };
  }
  if (RetryError.isInstance(error)) return classifyProviderError(error.lastError, options);
  if (APICallError.isInstance(error)) return fromCall(error);
  if (NoObjectGeneratedError.isInstance(error)) {
    return {
      ...base,
      code: "invalid_reply",
      message: "The model's reply did not match the requested structure.",
    };
  }
  const code = causeCode(error);
  if (code && /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|ENETUNREACH|UND_ERR/.test(code)) {
    return {
      ...base,
      code: "provider_unreachable",
      message: "The provider could not be reached at its address.",
    };
  }
  return { ...base, code: "provider_error", message: "The call to the provider failed." };
}
