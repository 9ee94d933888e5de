/**
 * The one way the dashboard calls a REST route (`/api/v1`, `/api/share`, `/api/auth`, `/api/oauth`): it answers the
 * typed body or throws an {@link ApiError} read from the API's envelope `{error: {type, code, message, param,
 * request_id}}`. tRPC calls go through `lib/trpc.ts`; both kinds of failure read the same through `lib/errors.ts`.
 */

/** A failed REST call as the API described it. `status` 0 means the server was not reached. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    message: string,
    readonly status: number,
    readonly type?: string,
    readonly code?: string,
    readonly param?: string,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

interface Envelope {
  error?: { type?: string; code?: string; message?: string; param?: string; request_id?: string };
}

export interface ApiRequestInit {
  method?: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** Sent as JSON, or as-is when it is FormData (a file upload). */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** The response itself, for the callers that read a stream; a non-2xx answer still throws {@link ApiError}. */
export async function apiResponse(path: string, init: ApiRequestInit = {}): Promise<Response> {
  const { body, headers = {}, signal } = init;
  const method = init.method ?? (body === undefined ? "GET" : "POST");
  const isForm = typeof FormData !== "undefined" && body instanceof FormData;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      signal,
      headers: body === undefined || isForm ? headers : { "Content-Type": "application/json", ...headers },
      body: body === undefined ? undefined : isForm ? (body as FormData) : JSON.stringify(body),
    });
  } catch (cause) {
    if (signal?.aborted) throw cause;
    throw new ApiError("Could not reach the server. Check your connection and try again.", 0);
  }
  if (!res.ok) throw await readApiError(res);
  return res;
}

/** Calls a REST route and answers its JSON body (undefined for 204). */
export async function apiRequest<T>(path: string, init: ApiRequestInit = {}): Promise<T> {
  const res = await apiResponse(path, init);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** The error a non-2xx response carries; a body that is not the envelope (a proxy's page) falls back to the status. */
export async function readApiError(res: Response): Promise<ApiError> {
  const requestHeader = res.headers.get("X-Request-Id") ?? undefined;
  const payload = (await res.json().catch(() => null)) as Envelope | null;
  const e = payload?.error;
  return new ApiError(
    e?.message ?? `The request failed (HTTP ${res.status}). Please try again.`,
    res.status,
    e?.type,
    e?.code,
    e?.param,
    e?.request_id ?? requestHeader,
  );
}
