import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * What every entry point reads of a request. A node request and a Web `Request` are both adapted to it, so one
 * pipeline serves `pnpm start` (node:http) and the Next.js route handlers of `next dev` alike.
 */
export interface ApiRequest {
  readonly method: string;
  /** Absolute URL. */
  readonly url: string;
  readonly headers: HeaderReader;
  /** Aborts when the client goes away before the response is complete. */
  readonly signal: AbortSignal;
  /** The whole body, refused with 413 as soon as it passes `limit` bytes, as declared or as counted. */
  readBody(limit: number): Promise<Uint8Array>;
  /**
   * The body as it arrives, for uploads that must never be held whole; it fails with 413 as soon as it passes
   * `limit` bytes. Stopping early leaves the connection able to carry the answer.
   */
  bodyChunks(limit: number): AsyncIterable<Uint8Array>;
  /** The node:http request and response, for an entry that hands them to a protocol library (OAuth). */
  readonly node?: { req: IncomingMessage; res: ServerResponse };
}

export interface HeaderReader {
  get(name: string): string | null;
  /** Every header, lower-cased names (for handing the request on to tRPC's fetch adapter). */
  entries(): Iterable<[string, string]>;
}
