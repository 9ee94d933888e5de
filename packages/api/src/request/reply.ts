import type { Readable } from "node:stream";

/** Response headers; `Set-Cookie` may carry several values. */
export type ResponseHeaders = Record<string, string | string[]>;

/** One server-sent event. `data` is sent as JSON on one line. */
export interface ServerSentEvent {
  /** Sent as `id:`; a client that reconnects sends the last one back as `Last-Event-ID`. */
  id?: string;
  /** Sent as `event:`; without it the client sees a `message` event. */
  event?: string;
  data: unknown;
}

/** An open event stream: its first event was already pulled (so errors before it were answered as JSON). */
export interface EventStream {
  first: ServerSentEvent | null;
  rest: AsyncIterator<ServerSentEvent>;
  heartbeatMs: number;
  /** Stops the producer when the client goes away (aborts the procedure's signal). */
  abort(): void;
  /** The frame sent when the producer fails after the stream began: the status line is gone, so it is an event. */
  errorFrame(err: unknown): string;
}

/** What an entry point answers: a whole body (or a file streamed from disk), or an event stream. */
export type Reply =
  | {
      status: number;
      headers: ResponseHeaders;
      body: string | Uint8Array | Readable | null;
      stream?: undefined;
      /** The entry already wrote the whole response on the node response (a protocol library answered). */
      written?: true;
    }
  | { status: 200; headers: ResponseHeaders; body?: undefined; stream: EventStream; written?: undefined };
