import { Rubricon } from "@rubricon/sdk";

export interface Connection {
  /** The server's address as the user typed it, e.g. `https://rubricon.example.com`. */
  baseUrl: string;
  /** The 7-day plugin token from pairing; absent before pairing. */
  token?: string;
  /** The runtime's `fetch` (the design tool's sandbox has its own). */
  fetch?: typeof fetch;
}

/** The server's origin, without a trailing slash or path: what the user configures and what permissions name. */
export function normalizeServer(value: string): string {
  const url = new URL(value.trim());
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new TypeError("The server address must be http(s).");
  return url.origin;
}

export function connect(conn: Connection): Rubricon {
  return new Rubricon({
    baseUrl: `${normalizeServer(conn.baseUrl)}/api/v1`,
    accessToken: conn.token,
    // A click in a plugin should answer within seconds; two quick retries cover a flaky connection.
    maxRetries: 2,
    timeout: 30_000,
    fetch: conn.fetch,
  });
}
