/**
 * The editor runs plugin code in a sandbox with ES2020 and its own `fetch`, but without some Web APIs the SDK
 * uses (`Headers`, `URL`, `URLSearchParams`, `AbortController`) and with a `fetch` whose response carries
 * `headersObject` instead of `Headers`. These minimal stand-ins are installed only where a global is missing.
 */

class MiniHeaders {
  readonly #map = new Map<string, string>();
  constructor(init?: Record<string, string> | [string, string][] | MiniHeaders) {
    if (init instanceof MiniHeaders) {
      init.forEach((v, k) => {
        this.set(k, v);
      });
    } else if (Array.isArray(init)) for (const [k, v] of init) this.set(k, v);
    else if (init) for (const k of Object.keys(init)) this.set(k, init[k]!);
  }
  get(name: string): string | null {
    return this.#map.get(name.toLowerCase()) ?? null;
  }
  set(name: string, value: string): void {
    this.#map.set(name.toLowerCase(), String(value));
  }
  has(name: string): boolean {
    return this.#map.has(name.toLowerCase());
  }
  delete(name: string): void {
    this.#map.delete(name.toLowerCase());
  }
  forEach(fn: (value: string, name: string) => void): void {
    this.#map.forEach((v, k) => {
      fn(v, k);
    });
  }
  entries() {
    return this.#map.entries();
  }
  [Symbol.iterator]() {
    return this.#map.entries();
  }
}

class MiniSearchParams {
  readonly #pairs: [string, string][] = [];
  append(name: string, value: string): void {
    this.#pairs.push([name, String(value)]);
  }
  set(name: string, value: string): void {
    const kept = this.#pairs.filter(([k]) => k !== name);
    this.#pairs.length = 0;
    this.#pairs.push(...kept, [name, String(value)]);
  }
  toString(): string {
    return this.#pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
  }
}

/** Absolute http(s) URLs only: all the SDK and the plugin ever parse. */
class MiniURL {
  protocol: string;
  host: string;
  pathname: string;
  search: string;
  hash: string;
  constructor(value: string) {
    const m = /^(https?:)\/\/([^/?#]+)([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(String(value).trim());
    if (!m) throw new TypeError(`Invalid URL: ${value}`);
    this.protocol = m[1]!.toLowerCase();
    this.host = m[2]!.toLowerCase();
    this.pathname = m[3] || "/";
    this.search = m[4] ?? "";
    this.hash = m[5] ?? "";
  }
  get origin(): string {
    return `${this.protocol}//${this.host}`;
  }
  toString(): string {
    return `${this.origin}${this.pathname}${this.search}${this.hash}`;
  }
}

class MiniAbortSignal {
  aborted = false;
  reason: unknown;
  readonly #listeners = new Set<() => void>();
  addEventListener(_type: "abort", fn: () => void): void {
    this.#listeners.add(fn);
  }
  removeEventListener(_type: "abort", fn: () => void): void {
    this.#listeners.delete(fn);
  }
  fire(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    for (const fn of [...this.#listeners]) fn();
  }
}

class MiniAbortController {
  readonly signal = new MiniAbortSignal();
  abort(reason?: unknown): void {
    this.signal.fire(reason);
  }
}

export function installSandboxGlobals(): void {
  const g = globalThis as Record<string, unknown>;
  g.Headers ??= MiniHeaders;
  g.URLSearchParams ??= MiniSearchParams;
  g.URL ??= MiniURL;
  g.AbortController ??= MiniAbortController;
}

/** The editor's fetch: plain-object headers in and out. */
export type SandboxFetch = (
  url: string,
  init?: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array; redirect?: string },
) => Promise<{
  ok: boolean;
  status: number;
  statusText: string;
  url: string;
  headersObject: Record<string, string>;
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
}>;

/** A WHATWG-shaped `fetch` over the editor's, for the SDK and the upload. */
export function adaptFetch(raw: SandboxFetch): typeof fetch {
  return (async (input: unknown, init?: RequestInit) => {
    const headers: Record<string, string> = {};
    if (init?.headers) {
      new Headers(init.headers as HeadersInit).forEach((v, k) => {
        headers[k] = v;
      });
    }
    const res = await raw(String(input), {
      method: init?.method,
      headers,
      body: init?.body as string | Uint8Array | undefined,
      redirect: init?.redirect,
    });
    return {
      ok: res.ok,
      status: res.status,
      statusText: res.statusText,
      url: res.url,
      headers: new Headers(res.headersObject),
      body: null,
      text: () => res.text(),
      json: () => res.json(),
      arrayBuffer: () => res.arrayBuffer(),
    } as unknown as Response;
  }) as typeof fetch;
}
