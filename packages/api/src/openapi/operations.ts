import { createSchema } from "zod-openapi";
import type { Route } from "../http/route-table";
import { procedureDef } from "../trpc/internals";
import { RATE_LIMIT_HEADERS } from "./components";

export type Operation = {
  responses?: Record<string, unknown>;
  description?: string;
  summary?: string;
  tags?: string[];
  requestBody?: unknown;
  "x-unmetered"?: boolean;
  "x-route-limit"?: unknown;
  security?: unknown;
  deprecated?: boolean;
  parameters?: unknown[];
  "x-required-scope"?: string;
  "x-required-scopes"?: string[];
  "x-session-only"?: boolean;
  "x-public"?: boolean;
  "x-feature-flag"?: string;
  "x-plans"?: string[];
};

type JsonSchema = { type?: string; properties?: Record<string, unknown>; required?: string[] };

/** The JSON schema of a procedure's input (several `.input()` calls merge, as tRPC merges them). */
function inputSchema(route: Route): JsonSchema {
  const merged: Required<Pick<JsonSchema, "properties" | "required">> = { properties: {}, required: [] };
  for (const input of procedureDef(route.procedure).inputs) {
    const { schema } = createSchema(input as Parameters<typeof createSchema>[0]) as { schema: JsonSchema };
    Object.assign(merged.properties, schema.properties);
    merged.required.push(...(schema.required ?? []));
  }
  return { type: "object", ...merged };
}

/**
 * trpc-to-openapi refuses subscriptions, so an event-stream route's operation is written here from its meta and
 * input schema: path parameters, query parameters (GET) or a JSON body (POST), and a `text/event-stream` answer.
 */
export function streamOperation(route: Route): Operation & Record<string, unknown> {
  const stream = route.meta.stream!;
  const input = inputSchema(route);
  const fields = Object.entries(input.properties ?? {}).filter(
    ([name]) => !route.paramNames.includes(name) && name !== "lastEventId",
  );
  const required = new Set(input.required);
  const parameters: unknown[] = [
    ...route.paramNames.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } })),
    {
      name: "Last-Event-ID",
      in: "header",
      required: false,
      description:
        "Resume after this event: the `id` of the last event received before the connection dropped.",
      schema: { type: "string" },
    },
  ];
  if (route.method === "GET") {
    for (const [name, schema] of fields)
      parameters.push({ name, in: "query", required: required.has(name), schema });
  }
  const events = Object.entries(stream.events)
    .map(([name, what]) => `- \`${name}\`: ${what}`)
    .join("\n");
  return {
    operationId: route.procedurePath.replace(/\./g, "-"),
    summary: stream.summary,
    description:
      `${stream.description ?? stream.summary}\n\nA server-sent event stream. Each event's \`data\` is one line of JSON; ` +
      `a comment line is sent every 15 seconds while nothing happens. Events:\n${events}`,
    ...(stream.tags ? { tags: stream.tags } : {}),
    parameters,
    ...(route.method === "POST"
      ? {
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: Object.fromEntries(fields),
                  required: [...required].filter((n) => fields.some(([f]) => f === n)),
                },
              },
            },
          },
        }
      : {}),
    "x-events": stream.events,
    responses: {
      "200": {
        description: "The event stream; it stays open until the work is done or the client disconnects.",
        content: { "text/event-stream": { schema: { type: "string" } } },
      },
    },
  };
}

/** An upload route's body: its input's fields as form parts, and the file part (trpc-to-openapi knows only JSON). */
export function multipartBody(route: Route): Record<string, unknown> {
  const upload = route.meta.upload!;
  const input = inputSchema(route);
  const fields = Object.entries(input.properties ?? {}).filter(([name]) => !route.paramNames.includes(name));
  return {
    required: true,
    content: {
      "multipart/form-data": {
        schema: {
          type: "object",
          properties: {
            [upload.field]: {
              type: "string",
              format: "binary",
              description: `The file, at most ${upload.maxFileBytes / (1024 * 1024)} MB.`,
            },
            ...Object.fromEntries(fields),
          },
          required: [upload.field, ...(input.required ?? []).filter((n) => n !== upload.field)],
        },
      },
    },
  };
}

/**
 * Which fields go together, as the input schema's own meta says it (`oneOf: [{ required: [...] }, ...]`): trpc-to-openapi
 * rebuilds the body schema from the input's fields without the path parameters, and drops those object-level rules.
 */
export function carryBodyRules(route: Route, op: Operation): void {
  const body = (
    op.requestBody as { content?: Record<string, { schema?: Record<string, unknown> }> } | undefined
  )?.content?.["application/json"]?.schema;
  if (!body) return;
  for (const input of procedureDef(route.procedure).inputs as {
    meta?: () => Record<string, unknown> | undefined;
  }[]) {
    const meta = input.meta?.();
    for (const rule of ["oneOf", "anyOf"] as const) if (meta?.[rule]) body[rule] = meta[rule];
  }
}

/**
 * A route answering a body it keeps (`reusedBody`) documents its validators: `ETag` and `Cache-Control` on the
 * success, the `If-None-Match` it reads, and the bodiless `304` a matching tag gets.
 */
export function conditionalGet(op: Operation, responses: Record<string, unknown>, success: string): void {
  const ok = responses[success] as { headers?: Record<string, unknown> };
  ok.headers = {
    ...ok.headers,
    ETag: { $ref: "#/components/headers/ETag" },
    "Cache-Control": { $ref: "#/components/headers/CacheControl" },
  };
  responses["304"] = {
    description:
      "Not modified: the body is still the one the `If-None-Match` tag names. No body; the validators again.",
    headers: {
      "X-Request-Id": { $ref: "#/components/headers/XRequestId" },
      ETag: { $ref: "#/components/headers/ETag" },
      "Cache-Control": { $ref: "#/components/headers/CacheControl" },
      ...RATE_LIMIT_HEADERS,
    },
  };
  op.parameters = [
    ...((op.parameters ?? []) as unknown[]),
    {
      name: "If-None-Match",
      in: "header",
      required: false,
      description: "The `ETag` of a body kept from an earlier answer (or a list of them, or `*`).",
      schema: { type: "string" },
    },
  ];
}
