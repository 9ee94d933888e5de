import { APIConnectionError, APITimeoutError, APIUserAbortError, RubriconError } from "./errors";
import { type ListPage, PagePromise } from "./pagination";
import type { RequestOptions } from "./request-options";
import { backoffDelay, MAX_RETRIES, MAX_RETRY_AFTER_MS, parseRetryAfter, sleep } from "./retry";
import { EventStream } from "./sse";
import { randomUUID } from "./uuid";

export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportConfig {
  baseUrl: string;
  token: string | undefined;
  serviceVersion: string | undefined;
  timeout: number;
  maxRetries: number;
  fetch: Fetch | undefined;
  defaultHeaders: Record<string, string>;
}

/** A call to the API: a path under the base URL (or an absolute URL), and what to send. */
export interface RequestSpec {
  method: string;
  path: string;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  options?: RequestOptions | undefined;
  /** Sent as `Last-Event-ID` when resuming a stream. */
  lastEventId?: string | undefined;
}

type Mode = "json" | "stream" | "redirect";

/** Everything between a method call and the network: URLs, headers, retries, timeouts and errors. */
export class Transport {
  readonly config: TransportConfig;

  constructor(config: TransportConfig) {
    this.config = config;
  }

  /** The parsed JSON body of a 2xx response (`undefined` when there is none). */
  request<T>(spec: RequestSpec): Promise<T> {
    return this.#execute(spec, "json") as Promise<T>;
  }

  list<TPage extends ListPage>(spec: RequestSpec): PagePromise<TPage> {
    return new PagePromise<TPage>((query) => this.request<TPage>({ ...spec, query }), spec.query ?? {});
  }

  stream(spec: RequestSpec): Promise<EventStream> {
    return this.#execute(spec, "stream") as Promise<EventStream>;
  }

  /** The `Location` of a 3xx response, resolved against the request URL; the redirect is not followed. */
  redirectUrl(spec: RequestSpec): Promise<string> {
    return this.#execute(spec, "redirect") as Promise<string>;
  }

  url(path: string, query: Record<string, unknown> | undefined): string {
    const base = /^https?:\/\//i.test(path)
      ? path
      : `${this.config.baseUrl}${path.startsWith("/") ? "" : "/"}${path}`;
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (item === undefined || item === null) continue;
        search.append(key, item instanceof Date ? item.toISOString() : String(item));
      }
    }
    const qs = search.toString();
    return qs ? `${base}${base.includes("?") ? "&" : "?"}${qs}` : base;
  }

  #headers(spec: RequestSpec, mode: Mode): Headers {
    const { config } = this;
    const headers = new Headers({ Accept: mode === "stream" ? "text/event-stream" : "application/json" });
    if (config.token) headers.set("Authorization", `Bearer ${config.token}`);
    if (config.serviceVersion) headers.set("Service-Version", config.serviceVersion);
    if (spec.body !== undefined) headers.set("Content-Type", "application/json");
    if (spec.lastEventId) headers.set("Last-Event-ID", spec.lastEventId);
    for (const [name, value] of Object.entries(config.defaultHeaders)) headers.set(name, value);
    if (spec.options?.idempotencyKey !== undefined)
      headers.set("Idempotency-Key", spec.options.idempotencyKey);
    for (const [name, value] of Object.entries(spec.options?.headers ?? {})) headers.set(name, value);
    // One key per call, made before the first attempt, so every retry carries the same one.
    if (spec.method.toUpperCase() === "POST" && !headers.has("Idempotency-Key")) {
      headers.set("Idempotency-Key", randomUUID());
    }
    return headers;
  }

  async #execute(spec: RequestSpec, mode: Mode): Promise<unknown> {
    const options = spec.options ?? {};
    const maxRetries = checkMaxRetries(options.maxRetries ?? this.config.maxRetries);
    const timeout = checkTimeout(options.timeout ?? this.config.timeout);
    const signal = options.signal;
    const method = spec.method.toUpperCase();
    const url = this.url(spec.path, spec.query);
    const headers = this.#headers(spec, mode);
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const doFetch: Fetch = this.config.fetch ?? ((input, init) => fetch(input, init));
    const userAbort = () =>
      new APIUserAbortError({
        message: "The request was aborted.",
        type: "abort_error",
        cause: signal?.reason,
      });

    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw userAbort();
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeout);
      const forwardAbort = () => controller.abort();
      signal?.addEventListener("abort", forwardAbort, { once: true });
      const stopTimer = () => clearTimeout(timer);
      const release = () => {
        stopTimer();
        signal?.removeEventListener("abort", forwardAbort);
      };
      // Distinguishes the caller's abort, our time-out and a failed connection, whatever the runtime threw.
      const failure = (cause: unknown): RubriconError => {
        if (signal?.aborted) return userAbort();
        if (timedOut) {
          return new APITimeoutError({
            message: `The request timed out after ${timeout} ms (${method} ${url}).`,
            type: "timeout_error",
            cause,
          });
        }
        return new APIConnectionError({
          message: `Could not reach ${url}: ${cause instanceof Error ? cause.message : String(cause)}`,
          type: "connection_error",
          cause,
        });
      };

      let error: RubriconError;
      let retryAfter: number | undefined;
      try {
        const response = await doFetch(url, {
          method,
          headers,
          body,
          signal: controller.signal,
          redirect: mode === "redirect" ? "manual" : "follow",
        });
        const isRedirect = response.status >= 300 && response.status < 400;
        if (response.ok && mode === "stream") {
          stopTimer();
          return await openStream(response, release, controller, failure);
        }
        if (response.ok && mode === "json") {
          const value = await readSuccess(response);
          release();
          return value;
        }
        if (mode === "redirect" && (isRedirect || response.type === "opaqueredirect")) {
          release();
          return await redirectTarget(response, url);
        }
        const raw = await readBody(response);
        release();
        if (response.ok) {
          throw new RubriconError({
            message: `Expected a redirect from ${method} ${url} but got HTTP ${response.status}.`,
            type: "api_error",
            status: response.status,
            headers: response.headers,
            requestId: response.headers.get("x-request-id") ?? undefined,
            raw,
          });
        }
        error = RubriconError.fromResponse(response.status, response.headers, raw);
        if (!isRetryable(error)) throw error;
        retryAfter = parseRetryAfter(response.headers.get("retry-after"));
        if (retryAfter !== undefined && retryAfter > MAX_RETRY_AFTER_MS) throw error;
      } catch (err) {
        release();
        if (err instanceof RubriconError) throw err;
        error = failure(err);
        if (error instanceof APIUserAbortError) throw error;
      }
      if (attempt >= maxRetries) throw error;
      await sleep(retryAfter ?? backoffDelay(attempt), signal, userAbort);
    }
  }
}

/** 429 (unless the month's quota is gone), 5xx, 408, and a concurrent request still holding the same key. */
function isRetryable(error: RubriconError): boolean {
  const status = error.status ?? 0;
  if (status === 429) return error.code !== "quota_exceeded";
  if (status === 409) return error.code === "idempotency_request_in_progress";
  return status === 408 || status >= 500;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function readSuccess(response: Response): Promise<unknown> {
  if (response.status === 204 || response.status === 205) {
    await response.body?.cancel();
    return undefined;
  }
  const text = await response.text();
  if (text === "") return undefined;
  const type = response.headers.get("content-type") ?? "";
  if (!/\bjson\b/i.test(type)) return text;
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new RubriconError({
      message: `The response (HTTP ${response.status}) is not valid JSON.`,
      type: "api_error",
      status: response.status,
      headers: response.headers,
      requestId: response.headers.get("x-request-id") ?? undefined,
      raw: text,
      cause,
    });
  }
}

async function openStream(
  response: Response,
  release: () => void,
  controller: AbortController,
  failure: (cause: unknown) => RubriconError,
): Promise<EventStream> {
  const type = response.headers.get("content-type") ?? "";
  if (!/^text\/event-stream\b/i.test(type)) {
    const raw = await readBody(response);
    release();
    throw new RubriconError({
      message: `Expected an event stream but got \`${type || "no content type"}\` (HTTP ${response.status}).`,
      type: "api_error",
      status: response.status,
      headers: response.headers,
      requestId: response.headers.get("x-request-id") ?? undefined,
      raw,
    });
  }
  return new EventStream(
    response,
    () => {
      release();
      controller.abort();
    },
    failure,
  );
}

async function redirectTarget(response: Response, url: string): Promise<string> {
  await response.body?.cancel();
  const location = response.headers.get("location");
  if (response.type === "opaqueredirect" || location === null) {
    throw new RubriconError({
      message:
        response.type === "opaqueredirect"
          ? "The runtime hides redirect targets from scripts (as browsers do); open the URL directly instead."
          : `HTTP ${response.status} without a Location header.`,
      type: "api_error",
      status: response.status || undefined,
      headers: response.headers,
      requestId: response.headers.get("x-request-id") ?? undefined,
    });
  }
  return new URL(location, url).toString();
}

export function checkMaxRetries(value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > MAX_RETRIES) {
    throw new RangeError(
      `maxRetries must be an integer from 0 to ${MAX_RETRIES} (at most 5 attempts in all).`,
    );
  }
  return value;
}

export function checkTimeout(value: number): number {
  if (!(value > 0) || !Number.isFinite(value))
    throw new RangeError("timeout must be a positive number of ms.");
  return value;
}
