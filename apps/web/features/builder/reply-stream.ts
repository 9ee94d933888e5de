import { apiResponse, readEventStream, type ServerEvent } from "@/lib/api";

/** One event of the assistant's reply stream. */
export type ReplyEvent = ServerEvent;

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
  const res = await apiResponse(`/api/v1/conversations/${encodeURIComponent(conversationId)}/messages`, {
    method: "POST",
    body: { role: "user", parts: [{ type: "text", text }], attachedDesignUrls: [] },
    signal,
  });
  await readEventStream(res, onEvent);
}
