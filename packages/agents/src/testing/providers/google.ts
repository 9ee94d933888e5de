import { header, type ProviderProtocol } from "./loopback-server";
import { chunksOf, countNodes, replyText, type ScriptedSuccess, usageOf } from "./script";

/**
 * The Gemini API: `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`;
 * keys travel as `x-goog-api-key` (or `?key=`). A wrong key is answered 400 `API_KEY_INVALID`, as Google does.
 */

const ROUTE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

function partsOf(reply: ScriptedSuccess) {
  const parts: Record<string, unknown>[] = [];
  const text = replyText(reply);
  if (reply.type !== "tool-calls" || text.length > 0) parts.push({ text });
  if (reply.type === "tool-calls") {
    for (const call of reply.calls) parts.push({ functionCall: { name: call.name, args: call.args } });
  }
  return parts;
}

function usageMetadata(reply: ScriptedSuccess) {
  const { inputTokens, outputTokens } = usageOf(reply);
  return {
    promptTokenCount: inputTokens,
    candidatesTokenCount: outputTokens,
    totalTokenCount: inputTokens + outputTokens,
  };
}

function errorBody(code: number, status: string, message: string, details?: unknown[]) {
  return { error: { code, message, status, ...(details && { details }) } };
}

export const googleProtocol: ProviderProtocol = {
  basePath: "/v1beta",
  parse(method, path, query, headers, body) {
    const match = ROUTE.exec(path);
    if (method !== "POST" || !match) return null;
    const record = body !== null && typeof body === "object" ? (body as Record<string, unknown>) : {};
    return {
      model: match[1] ?? null,
      stream: match[2] === "streamGenerateContent",
      apiKey: header(headers, "x-goog-api-key") ?? query.get("key"),
      images: countNodes(record.contents, (node) => {
        const inline = node.inlineData as { mimeType?: unknown } | undefined;
        const file = node.fileData as { mimeType?: unknown } | undefined;
        const mime = inline?.mimeType ?? file?.mimeType;
        return typeof mime === "string" && mime.startsWith("image/");
      }),
    };
  },
  failure(reply) {
    switch (reply.type) {
      case "bad-key":
        return {
          status: 400,
          body: errorBody(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
            {
              "@type": "type.googleapis.com/google.rpc.ErrorInfo",
              reason: "API_KEY_INVALID",
              domain: "googleapis.com",
              metadata: { service: "generativelanguage.googleapis.com" },
            },
          ]),
        };
      case "rate-limited":
        return {
          status: 429,
          body: errorBody(
            429,
            "RESOURCE_EXHAUSTED",
            `You exceeded your current quota, please check your plan and billing details. Please retry in ${reply.retryAfterSeconds}s.`,
            [
              {
                "@type": "type.googleapis.com/google.rpc.RetryInfo",
                retryDelay: `${reply.retryAfterSeconds}s`,
              },
            ],
          ),
        };
      case "server-error":
        return {
          status: 500,
          body: errorBody(
            500,
            "INTERNAL",
            "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
          ),
        };
    }
  },
  json(reply, context) {
    return {
      candidates: [{ content: { parts: partsOf(reply), role: "model" }, finishReason: "STOP", index: 0 }],
      usageMetadata: usageMetadata(reply),
      modelVersion: context.model,
      responseId: "loopback-response-1",
    };
  },
  events(reply, context) {
    const parts = partsOf(reply);
    const events: { data: unknown }[] = [];
    const pieces: Record<string, unknown>[] = [];
    for (const part of parts) {
      if (typeof part.text === "string") for (const text of chunksOf(part.text)) pieces.push({ text });
      else pieces.push(part);
    }
    pieces.forEach((part, index) => {
      const last = index === pieces.length - 1;
      events.push({
        data: {
          candidates: [
            { content: { parts: [part], role: "model" }, index: 0, ...(last && { finishReason: "STOP" }) },
          ],
          ...(last && { usageMetadata: usageMetadata(reply) }),
          modelVersion: context.model,
          responseId: "loopback-response-1",
        },
      });
    });
    return events;
  },
  notFound: (path) => ({
    status: 404,
    body: errorBody(404, "NOT_FOUND", `models path not found: ${path}`),
  }),
};
