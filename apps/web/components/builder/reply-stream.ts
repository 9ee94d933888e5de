/** One event of the assistant's reply stream. */
export interface ReplyEvent {
  event: string;
  data: unknown;
}

/**
 * Sends a message and reads the reply's server-sent events as they come (the REST route, with the session
 * cookie; tRPC's batch link cannot stream).
 */
export async function sendMessage(
  conversationId: string,
  text: string,
  onEvent: (e: ReplyEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const res = await fetch(`/api/v1/conversations/${encodeURIComponent(conversationId)}/messages`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ role: "user", parts: [{ type: "text", text }], attachedDesignUrls: [] }),
    signal,
  });
  if (!res.ok || !res.body) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(body?.error?.message ?? `The message was not sent (${res.status}).`);
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      let data: unknown;
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data = JSON.parse(line.slice(6));
      }
      if (data !== undefined) onEvent({ event, data });
    }
  }
}
