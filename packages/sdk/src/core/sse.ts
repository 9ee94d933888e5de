/** One event of a `text/event-stream` response. */
export interface ServerSentEvent {
  /** The `event:` field; `message` when the server sent none. */
  event: string;
  /** The `data:` lines joined with newlines. Often JSON: `JSON.parse(event.data)`. */
  data: string;
  /** The last `id:` the stream set, which carries over to later events (send it back as `lastEventId`). */
  id: string | undefined;
  /** The last `retry:` the stream set, in milliseconds. */
  retry: number | undefined;
}

/**
 * Parses a `text/event-stream` body as the HTML Living Standard describes it: CR, LF or CRLF line ends, `:`
 * comments, multi-line `data`, and an event left unterminated at the end of the stream dropped.
 */
export async function* parseServerSentEvents(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
): AsyncGenerator<ServerSentEvent, void, undefined> {
  // TextDecoder drops a leading BOM, which the format allows.
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let eventType = "";
  let lastEventId: string | undefined;
  let retry: number | undefined;

  const processLine = (line: string): ServerSentEvent | undefined => {
    if (line === "") {
      const event =
        data.length > 0
          ? { event: eventType || "message", data: data.join("\n"), id: lastEventId, retry }
          : undefined;
      data = [];
      eventType = "";
      return event;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") eventType = value;
    else if (field === "id") {
      if (!value.includes("\0")) lastEventId = value || undefined;
    } else if (field === "retry" && /^\d+$/.test(value)) retry = Number(value);
    return undefined;
  };

  const drain = function* (final: boolean): Generator<ServerSentEvent> {
    for (;;) {
      const match = /\r\n|\r|\n/.exec(buffer);
      if (!match) break;
      // A CR at the very end may be the first half of a CRLF split across chunks.
      if (!final && match[0] === "\r" && match.index === buffer.length - 1) break;
      const line = buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
      const event = processLine(line);
      if (event) yield event;
    }
  };

  for await (const chunk of chunks(body)) {
    buffer += decoder.decode(chunk, { stream: true });
    yield* drain(false);
  }
  buffer += decoder.decode();
  yield* drain(true);
}

/** ReadableStream iteration without relying on its async iterator, which not every runtime has. */
async function* chunks(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
): AsyncGenerator<Uint8Array, void, undefined> {
  if (!("getReader" in body)) {
    yield* body;
    return;
  }
  const reader = body.getReader();
  let done = false;
  try {
    for (;;) {
      const result = await reader.read();
      if (result.done) {
        done = true;
        return;
      }
      yield result.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/**
 * An open `text/event-stream` response. Iterate it for events; leaving the loop early, or `close()`, ends the
 * connection.
 */
export class EventStream implements AsyncIterable<ServerSentEvent> {
  /** The response, for its headers; its body belongs to the stream. */
  readonly response: Response;
  /** The last event id seen; pass it as `lastEventId` to resume after a disconnect. */
  lastEventId: string | undefined;
  readonly #close: () => void;
  readonly #mapError: (err: unknown) => unknown;
  #iterated = false;
  #closed = false;

  constructor(response: Response, close: () => void, mapError: (err: unknown) => unknown = (e) => e) {
    this.response = response;
    this.#close = close;
    this.#mapError = mapError;
  }

  /** `X-Request-Id` of the response. */
  get requestId(): string | undefined {
    return this.response.headers.get("x-request-id") ?? undefined;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ServerSentEvent, void, undefined> {
    if (this.#iterated) throw new TypeError("An event stream can be iterated only once.");
    this.#iterated = true;
    const body = this.response.body;
    if (!body) return;
    try {
      for await (const event of parseServerSentEvents(body)) {
        this.lastEventId = event.id;
        yield event;
      }
    } catch (err) {
      // Reading fails once the connection is cut on purpose; that is the end of the stream, not an error.
      if (this.#closed) return;
      throw this.#mapError(err);
    } finally {
      this.close();
    }
  }

  /** Ends the connection; an iteration in progress finishes. */
  close(): void {
    this.#closed = true;
    this.#close();
  }
}
