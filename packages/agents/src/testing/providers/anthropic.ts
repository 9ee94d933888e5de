import { header, type ProviderProtocol, type ReplyContext } from "./loopback-server";
import { chunksOf, countNodes, replyText, type ScriptedSuccess, usageOf } from "./script";

/** Anthropic's Messages API (`POST /v1/messages`); keys travel as `x-api-key`. */

/** Whether the request forced the `json` tool the AI SDK uses for structured output on older models. */
function usesJsonTool(body: Record<string, unknown>): boolean {
  const tools = Array.isArray(body.tools) ? (body.tools as { name?: unknown }[]) : [];
  return tools.some((tool) => tool.name === "json");
}

type Block =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> | unknown };

function blocksOf(reply: ScriptedSuccess, context: ReplyContext): Block[] {
  if (reply.type === "json" && usesJsonTool(context.body)) {
    return [{ type: "tool_use", id: "toolu_loopback_json", name: "json", input: reply.value }];
  }
  const blocks: Block[] = [];
  const text = replyText(reply);
  if (reply.type !== "tool-calls" || text.length > 0) blocks.push({ type: "text", text });
  if (reply.type === "tool-calls") {
    for (const [index, call] of reply.calls.entries()) {
      blocks.push({
        type: "tool_use",
        id: call.id ?? `toolu_loopback_${index + 1}`,
        name: call.name,
        input: call.args,
      });
    }
  }
  return blocks;
}

function stopReason(blocks: Block[]): string {
  return blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
}

function usage(reply: ScriptedSuccess) {
  const { inputTokens, outputTokens } = usageOf(reply);
  return {
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

function errorBody(type: string, message: string) {
  return { type: "error", error: { type, message }, request_id: "req_loopback_1" };
}

export const anthropicProtocol: ProviderProtocol = {
  basePath: "/v1",
  parse(method, path, _query, headers, body) {
    if (method !== "POST" || path !== "/v1/messages") return null;
    const record = body !== null && typeof body === "object" ? (body as Record<string, unknown>) : {};
    return {
      model: typeof record.model === "string" ? record.model : null,
      stream: record.stream === true,
      apiKey: header(headers, "x-api-key"),
      images: countNodes(record.messages, (node) => node.type === "image"),
    };
  },
  failure(reply) {
    switch (reply.type) {
      case "bad-key":
        return { status: 401, body: errorBody("authentication_error", "invalid x-api-key") };
      case "rate-limited":
        return {
          status: 429,
          headers: {
            "retry-after": String(reply.retryAfterSeconds),
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": "0",
          },
          body: errorBody(
            "rate_limit_error",
            "This request would exceed the rate limit for your organization of 50 requests per minute.",
          ),
        };
      case "server-error":
        return { status: 500, body: errorBody("api_error", "Internal server error") };
    }
  },
  json(reply, context) {
    const content = blocksOf(reply, context);
    return {
      id: "msg_loopback_1",
      type: "message",
      role: "assistant",
      model: context.model,
      content,
      stop_reason: stopReason(content),
      stop_sequence: null,
      usage: usage(reply),
    };
  },
  events(reply, context) {
    const blocks = blocksOf(reply, context);
    const { input_tokens, output_tokens } = usage(reply);
    const events: { event: string; data: unknown }[] = [];
    const push = (type: string, data: Record<string, unknown>) =>
      events.push({ event: type, data: { type, ...data } });
    push("message_start", {
      message: {
        id: "msg_loopback_1",
        type: "message",
        role: "assistant",
        model: context.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    });
    push("ping", {});
    blocks.forEach((block, index) => {
      if (block.type === "text") {
        push("content_block_start", { index, content_block: { type: "text", text: "" } });
        for (const text of chunksOf(block.text)) {
          push("content_block_delta", { index, delta: { type: "text_delta", text } });
        }
      } else {
        push("content_block_start", {
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
        });
        for (const partial_json of chunksOf(JSON.stringify(block.input))) {
          push("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
        }
      }
      push("content_block_stop", { index });
    });
    push("message_delta", {
      delta: { stop_reason: stopReason(blocks), stop_sequence: null },
      usage: { output_tokens },
    });
    push("message_stop", {});
    return events;
  },
  notFound: (path) => ({ status: 404, body: errorBody("not_found_error", `Not found: ${path}`) }),
};
