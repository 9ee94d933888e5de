/**
 * The one reader of server-sent events. Two transports share it: a POST whose answer streams (the builder's reply;
 * EventSource can only GET) goes through {@link readEventStream}, a long-lived GET that should reconnect and resume
 * from Last-Event-ID goes through {@link subscribeEvents}. Both hand over `{event, data}` with `data` parsed as JSON.
 */

export interface ServerEvent {
  event: string;
  data: unknown;
  id?: string;
}

/** Splits one `\n\n`-terminated block into its event; comments (`: ping`) and blocks without data yield nothing. */
export function parseEventBlock(block: string): ServerEvent | undefined {
  let event = "message";
  let id: string | undefined;
  const data: string[] = [];
  for (const raw of block.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  if (data.length === 0) return undefined;
  return { event, data: JSON.parse(data.join("\n")), ...(id ? { id } : {}) };
}

/** Reads a streamed response to its end, calling `onEvent` for each event as it arrives. */
export async function readEventStream(res: Response, onEvent: (e: ServerEvent) => void): Promise<void> {
  if (!res.body) return;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
    for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
      const parsed = parseEventBlock(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (parsed) onEvent(parsed);
    }
  }
  const rest = parseEventBlock(buffer.trim());
  if (rest) onEvent(rest);
}

export type StreamConnection = "connecting" | "open" | "closed";

/**
 * Opens a GET event stream that the browser keeps alive (EventSource reconnects by itself and sends
 * Last-Event-ID). `onEvent` receives the named events listed in `events`; answer a close function.
 */
export function subscribeEvents(
  url: string,
  events: readonly string[],
  onEvent: (e: ServerEvent) => void,
  onConnection?: (state: StreamConnection) => void,
): () => void {
  const source = new EventSource(url);
  for (const name of events) {
    source.addEventListener(name, (e) => {
      const message = e as MessageEvent<string>;
      onEvent({
        event: name,
        data: JSON.parse(message.data),
        ...(message.lastEventId ? { id: message.lastEventId } : {}),
      });
    });
  }
  source.onopen = () => onConnection?.("open");
  source.onerror = () => {
    // CLOSED means the browser gave up (the answer was not a stream, e.g. 404); otherwise it is reconnecting.
    onConnection?.(source.readyState === EventSource.CLOSED ? "closed" : "connecting");
  };
  return () => source.close();
}
