/** One frame of a server-sent event stream as it came over the wire; a comment line is a heartbeat. */
export interface Frame {
  id?: string;
  event?: string;
  data?: unknown;
  comment?: string;
}

export interface OpenStream {
  response: Response;
  /** The next frame, or null once the server ended the stream. */
  next(): Promise<Frame | null>;
  /** Drops the connection, as a client that goes away does. */
  close(): void;
}

function parseFrame(block: string): Frame {
  const frame: Frame = {};
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) frame.comment = line.slice(1).trim();
    else if (line.startsWith("id: ")) frame.id = line.slice(4);
    else if (line.startsWith("event: ")) frame.event = line.slice(7);
    else if (line.startsWith("data: ")) frame.data = JSON.parse(line.slice(6));
  }
  return frame;
}

/** Reads a `text/event-stream` body frame by frame, over real HTTP or from a Web `Response`. */
export function readFrames(response: Response, abort: () => void): OpenStream {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  return {
    response,
    async next() {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          return parseFrame(block);
        }
        const { done, value } = await reader.read();
        if (done) return null;
        buffer += decoder.decode(value, { stream: true });
      }
    },
    close() {
      abort();
      void reader.cancel().catch(() => {});
    },
  };
}

export async function openStream(url: string, headers: Record<string, string>): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  return readFrames(response, () => controller.abort());
}

/** The next frame that is an event, skipping heartbeats. */
export async function nextEvent(stream: OpenStream): Promise<Frame | null> {
  for (;;) {
    const frame = await stream.next();
    if (frame === null || frame.comment === undefined) return frame;
  }
}
