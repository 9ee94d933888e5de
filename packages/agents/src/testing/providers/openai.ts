import { bearerToken, type ProviderProtocol, type ReplyContext } from "./loopback-server";
import { chunksOf, countNodes, replyText, type ScriptedSuccess, usageOf } from "./script";

/**
 * OpenAI's Responses API (`POST /v1/responses`, what `openai(model)` calls) and Chat Completions
 * (`POST /v1/chat/completions`, what `openai.chat()` and every openai-compatible server speak: Ollama,
 * vLLM, LM Studio). Keys travel as `Authorization: Bearer`.
 */

const created = () => Math.floor(Date.now() / 1000);

function maskKey(key: string | null): string {
  if (!key) return "<empty>";
  return `${key.slice(0, 3)}${"*".repeat(Math.max(0, key.length - 7))}${key.slice(-4)}`;
}

function toolCallsOf(reply: ScriptedSuccess) {
  if (reply.type !== "tool-calls") return [];
  return reply.calls.map((call, index) => ({
    id: call.id ?? `call_${index + 1}`,
    name: call.name,
    arguments: JSON.stringify(call.args),
  }));
}

function responsesUsage(reply: ScriptedSuccess) {
  const usage = usageOf(reply);
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

function responsesBody(reply: ScriptedSuccess, context: ReplyContext) {
  const text = replyText(reply);
  const output: unknown[] = [];
  if (reply.type !== "tool-calls" || text.length > 0) {
    output.push({
      type: "message",
      id: "msg_loopback_1",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
    });
  }
  toolCallsOf(reply).forEach((call, index) => {
    output.push({
      type: "function_call",
      id: `fc_loopback_${index + 1}`,
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
      status: "completed",
    });
  });
  return {
    id: "resp_loopback_1",
    object: "response",
    created_at: created(),
    status: "completed",
    error: null,
    incomplete_details: null,
    model: context.model,
    output,
    usage: responsesUsage(reply),
  };
}

function responsesEvents(reply: ScriptedSuccess, context: ReplyContext) {
  const events: { event: string; data: Record<string, unknown> }[] = [];
  let sequence = 0;
  const push = (type: string, data: Record<string, unknown>) =>
    events.push({ event: type, data: { type, sequence_number: sequence++, ...data } });
  const base = { id: "resp_loopback_1", object: "response", created_at: created(), model: context.model };
  push("response.created", { response: { ...base, status: "in_progress", output: [], usage: null } });
  const full = responsesBody(reply, context);
  const text = replyText(reply);
  let index = 0;
  if (reply.type !== "tool-calls" || text.length > 0) {
    const item = {
      type: "message",
      id: "msg_loopback_1",
      status: "in_progress",
      role: "assistant",
      content: [],
    };
    push("response.output_item.added", { output_index: index, item });
    push("response.content_part.added", {
      item_id: item.id,
      output_index: index,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    });
    for (const delta of chunksOf(text)) {
      push("response.output_text.delta", {
        item_id: item.id,
        output_index: index,
        content_index: 0,
        delta,
        logprobs: [],
      });
    }
    push("response.output_text.done", {
      item_id: item.id,
      output_index: index,
      content_index: 0,
      text,
      logprobs: [],
    });
    push("response.output_item.done", { output_index: index, item: full.output[index] });
    index++;
  }
  for (const [n, call] of toolCallsOf(reply).entries()) {
    const id = `fc_loopback_${n + 1}`;
    push("response.output_item.added", {
      output_index: index,
      item: {
        type: "function_call",
        id,
        call_id: call.id,
        name: call.name,
        arguments: "",
        status: "in_progress",
      },
    });
    for (const delta of chunksOf(call.arguments)) {
      push("response.function_call_arguments.delta", { item_id: id, output_index: index, delta });
    }
    push("response.function_call_arguments.done", {
      item_id: id,
      output_index: index,
      arguments: call.arguments,
    });
    push("response.output_item.done", { output_index: index, item: full.output[index] });
    index++;
  }
  push("response.completed", { response: full });
  return events;
}

function chatUsage(reply: ScriptedSuccess) {
  const usage = usageOf(reply);
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

function chatBody(reply: ScriptedSuccess, context: ReplyContext) {
  const calls = toolCallsOf(reply);
  const text = replyText(reply);
  return {
    id: "chatcmpl-loopback-1",
    object: "chat.completion",
    created: created(),
    model: context.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: calls.length > 0 && text.length === 0 ? null : text,
          ...(calls.length > 0 && {
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: call.arguments },
            })),
          }),
        },
        finish_reason: calls.length > 0 ? "tool_calls" : "stop",
        logprobs: null,
      },
    ],
    usage: chatUsage(reply),
  };
}

function chatEvents(reply: ScriptedSuccess, context: ReplyContext) {
  const base = {
    id: "chatcmpl-loopback-1",
    object: "chat.completion.chunk",
    created: created(),
    model: context.model,
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    data: { ...base, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] },
  });
  const events: { data: unknown }[] = [chunk({ role: "assistant", content: "" })];
  const text = replyText(reply);
  if (text.length > 0) for (const piece of chunksOf(text)) events.push(chunk({ content: piece }));
  const calls = toolCallsOf(reply);
  calls.forEach((call, index) => {
    events.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
      }),
    );
    for (const piece of chunksOf(call.arguments)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  events.push(chunk({}, calls.length > 0 ? "tool_calls" : "stop"));
  const streamOptions = context.body.stream_options as { include_usage?: boolean } | undefined;
  if (streamOptions?.include_usage) events.push({ data: { ...base, choices: [], usage: chatUsage(reply) } });
  events.push({ data: "[DONE]" });
  return events;
}

const isChat = (path: string) => path === "/v1/chat/completions";

export const openaiProtocol: ProviderProtocol = {
  basePath: "/v1",
  parse(method, path, _query, headers, body) {
    if (method !== "POST" || !(isChat(path) || path === "/v1/responses")) return null;
    const record = body !== null && typeof body === "object" ? (body as Record<string, unknown>) : {};
    return {
      model: typeof record.model === "string" ? record.model : null,
      stream: record.stream === true,
      apiKey: bearerToken(headers),
      images: countNodes(
        record.messages ?? record.input,
        (node) => node.type === "image_url" || node.type === "input_image",
      ),
    };
  },
  failure(reply, request) {
    switch (reply.type) {
      case "bad-key":
        return {
          status: 401,
          body: {
            error: {
              message: `Incorrect API key provided: ${maskKey(request.apiKey)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
              type: "invalid_request_error",
              param: null,
              code: "invalid_api_key",
            },
          },
        };
      case "rate-limited":
        return {
          status: 429,
          headers: {
            "retry-after": String(reply.retryAfterSeconds),
            "x-ratelimit-limit-requests": "500",
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": `${reply.retryAfterSeconds}s`,
          },
          body: {
            error: {
              message: `Rate limit reached for requests. Please try again in ${reply.retryAfterSeconds}s.`,
              type: "requests",
              param: null,
              code: "rate_limit_exceeded",
            },
          },
        };
      case "server-error":
        return {
          status: 500,
          body: {
            error: {
              message: "The server had an error while processing your request. Sorry about that!",
              type: "server_error",
              param: null,
              code: null,
            },
          },
        };
    }
  },
  json: (reply, context) => (isChat(context.path) ? chatBody(reply, context) : responsesBody(reply, context)),
  events: (reply, context) =>
    isChat(context.path) ? chatEvents(reply, context) : responsesEvents(reply, context),
  notFound: (path) => ({
    status: 404,
    body: {
      error: {
        message: `Invalid URL (POST ${path})`,
        type: "invalid_request_error",
        param: null,
        code: null,
      },
    },
  }),
};
