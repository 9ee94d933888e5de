import type { RequestOptions, StreamRequestOptions } from "./core/request-options";
import { MAX_RETRIES } from "./core/retry";
import type { EventStream } from "./core/sse";
import { checkMaxRetries, checkTimeout, type Fetch, Transport } from "./core/transport";
import { SERVICE_VERSION } from "./generated/api-version";
import type { Resources } from "./generated/resources";
import { buildResources } from "./resources";

/** Where a local `pnpm start` serves the API; pass `baseUrl` (or set `RUBRICON_BASE_URL`) for any other. */
export const DEFAULT_BASE_URL = "http://localhost:3000/api/v1";
export const DEFAULT_TIMEOUT_MS = 60_000;

export interface RubriconOptions {
  /** An API key, `ak_live_...`. Defaults to `RUBRICON_API_KEY` from the environment, where there is one. */
  apiKey?: string | undefined;
  /** An OAuth 2.1 access token, instead of an API key. */
  accessToken?: string | undefined;
  /**
   * The API root, including `/api/v1`: `https://rubricon.example.com/api/v1`. A bare origin gets `/api/v1`
   * appended. Defaults to `RUBRICON_BASE_URL`, then `http://localhost:3000/api/v1`.
   */
  baseUrl?: string | undefined;
  /**
   * Sent as `Service-Version` on every request: the API version whose shapes answer. Defaults to the version this
   * SDK was generated for (`SERVICE_VERSION`), which its types describe; name another only with types of your own.
   */
  serviceVersion?: string | undefined;
  /** Milliseconds each attempt may take; 60 000 by default. */
  timeout?: number | undefined;
  /** Retries after a 429, a 5xx or a network failure, from 0 to 4; 4 by default (five attempts in all). */
  maxRetries?: number | undefined;
  /** A `fetch` to use instead of the global one (a proxy agent, instrumentation, tests). */
  fetch?: Fetch | undefined;
  /** Headers sent with every request. */
  defaultHeaders?: Record<string, string> | undefined;
}

/** Options of the generic `request`, `stream` and `getRedirectUrl` calls. */
export interface CallOptions extends RequestOptions {
  query?: Record<string, unknown> | undefined;
  body?: unknown;
}

export interface StreamOptions extends CallOptions, StreamRequestOptions {
  /** HTTP method; `GET` by default. */
  method?: string | undefined;
}

// The resource properties are assigned at run time from the operations table; this base gives them types.
const WithResources = class {} as new () => Resources;

/**
 * The Rubricon API client.
 *
 * ```ts
 * const rubricon = new Rubricon({ apiKey: process.env.RUBRICON_API_KEY });
 * const evaluation = await rubricon.evaluations.create({ name: "Checkout", type: "SSE" });
 * for await (const e of rubricon.evaluations.list({ limit: 50 })) console.log(e.id);
 * ```
 */
export class Rubricon extends WithResources {
  /** The API root every path is relative to. */
  readonly baseUrl: string;
  readonly #transport: Transport;

  constructor(options: RubriconOptions = {}) {
    super();
    if (options.apiKey && options.accessToken) {
      throw new TypeError("Pass either apiKey or accessToken, not both.");
    }
    const token = options.apiKey ?? options.accessToken ?? readEnv("RUBRICON_API_KEY");
    this.baseUrl = normalizeBaseUrl(options.baseUrl ?? readEnv("RUBRICON_BASE_URL") ?? DEFAULT_BASE_URL);
    const maxRetries = checkMaxRetries(options.maxRetries ?? MAX_RETRIES);
    const timeout = checkTimeout(options.timeout ?? DEFAULT_TIMEOUT_MS);
    this.#transport = new Transport({
      baseUrl: this.baseUrl,
      token,
      serviceVersion: options.serviceVersion ?? SERVICE_VERSION,
      timeout,
      maxRetries,
      fetch: options.fetch,
      defaultHeaders: options.defaultHeaders ?? {},
    });
    Object.assign(this, buildResources(this.#transport));
  }

  /**
   * Any route, including ones this version of the SDK has no method for yet; answers the parsed JSON body.
   * POSTs get an `Idempotency-Key` and every call gets retries and typed errors, as the resource methods do.
   */
  request<T = unknown>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    const { query, body, ...rest } = options;
    return this.#transport.request<T>({ method, path, query, body, options: rest });
  }

  /**
   * Opens a `text/event-stream` route and resolves once the server has answered, so a failure before the
   * stream (401, 404) rejects with its typed error. Iterate the result for events.
   *
   * ```ts
   * const stream = await rubricon.stream(`/evaluations/${id}/autouser-stream`);
   * for await (const event of stream) console.log(event.event, JSON.parse(event.data));
   * ```
   */
  stream(path: string, options: StreamOptions = {}): Promise<EventStream> {
    const { query, body, method = "GET", lastEventId, ...rest } = options;
    return this.#transport.stream({ method, path, query, body, lastEventId, options: rest });
  }

  /**
   * Requests a route that answers with a redirect (such as a file's signed download URL) and returns its
   * `Location` without following it. Browsers hide redirect targets from scripts, so this needs a server-side
   * runtime (Node, Bun, Deno, edge functions).
   */
  getRedirectUrl(path: string, options: CallOptions = {}): Promise<string> {
    const { query, body, ...rest } = options;
    return this.#transport.redirectUrl({ method: "GET", path, query, body, options: rest });
  }
}

function normalizeBaseUrl(value: string): string {
  const url = new URL(value);
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = path === "" ? "/api/v1" : path;
  return url.toString().replace(/\/+$/, "");
}

/** Environment variables where the runtime has them (Node, Bun, Deno with permission); never required. */
function readEnv(name: string): string | undefined {
  const g = globalThis as {
    process?: { env?: Record<string, string | undefined> };
    Deno?: { env?: { get(key: string): string | undefined } };
  };
  try {
    const value = g.process?.env?.[name] ?? g.Deno?.env?.get(name);
    return value?.trim() ? value.trim() : undefined;
  } catch {
    return undefined;
  }
}
