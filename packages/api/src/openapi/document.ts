import { ErrorEnvelope } from "@rubricon/contracts";
import type { AnyRouter } from "@trpc/server";
import { generateOpenApiDocument, type OpenApiRouter } from "trpc-to-openapi";
import { createSchema } from "zod-openapi";
import type { Route, RouteTable } from "../http/route-table";
import { procedureDef } from "../trpc/internals";

type Operation = {
  responses?: Record<string, unknown>;
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

const ERROR_STATUSES: Record<string, string> = {
  "400": "Invalid request: malformed JSON, validation failure or a missing field (`invalid_request_error`).",
  "401": "Missing, malformed, expired or revoked credentials (`authentication_error`).",
  "403": "Authenticated but lacking a scope or team permission (`authorization_error`).",
  "404": "No such resource, or the caller may not see it (`not_found_error`).",
  "409": "`Idempotency-Key` reused with a different request.",
  "429":
    "Too many requests (`rate_limit_exceeded`, with `Retry-After`) or a monthly quota used up (`quota_exceeded`, " +
    "without); `rate_limit_error`.",
  "500": "Unexpected server error (`api_error`).",
};

const RATE_LIMIT_HEADER_COMPONENTS = {
  XRateLimitLimit: {
    description:
      "Requests allowed per window: the team's per-minute budget, or a route's own stricter limit.",
    schema: { type: "integer" },
  },
  XRateLimitRemaining: {
    description: "Requests left in the window.",
    schema: { type: "integer" },
  },
  XRateLimitReset: {
    description: "Unix seconds when the oldest counted request leaves the sliding window (a slot frees).",
    schema: { type: "integer" },
  },
  RetryAfter: {
    description: "Seconds until a slot frees; sent with `rate_limit_exceeded`, not with `quota_exceeded`.",
    schema: { type: "integer" },
  },
};

const RATE_LIMIT_HEADERS = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/XRateLimitLimit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/XRateLimitRemaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/XRateLimitReset" },
};

const REDIRECT_RESPONSE = {
  description: "Redirect to a short-lived URL; follow `Location` at once. The response is never cached.",
  headers: {
    Location: { description: "Where to go.", schema: { type: "string", format: "uri" } },
    "Cache-Control": { description: "Always `no-store`.", schema: { type: "string", const: "no-store" } },
    "X-Request-Id": { $ref: "#/components/headers/XRequestId" },
    ...RATE_LIMIT_HEADERS,
  },
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
function streamOperation(route: Route): Operation & Record<string, unknown> {
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
function multipartBody(route: Route): Record<string, unknown> {
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
 * trpc-to-openapi's document plus one post-processing step: the real success status of each route, the error
 * envelope on every error response, the request-id header, and one global bearer scheme.
 */
export function buildOpenApiDocument(
  router: AnyRouter,
  routes: RouteTable,
  baseUrl: string,
): Record<string, unknown> {
  const doc = generateOpenApiDocument(router as unknown as OpenApiRouter, {
    openApiVersion: "3.1.0",
    title: "API",
    version: "v1",
    description:
      "Rubricon REST API: UX evaluations rated by people and autousers. Every error response carries the ErrorEnvelope.",
    baseUrl: `${baseUrl}/api/v1`,
    securitySchemes: {
      bearerAuth: {
        type: "http",
        scheme: "bearer",
        description: "API key (`ak_live_...`) or OAuth access token.",
      },
    },
  }) as unknown as {
    paths: Record<string, Record<string, Operation>>;
    components: {
      schemas?: Record<string, unknown>;
      securitySchemes?: unknown;
      responses?: Record<string, unknown>;
      headers?: Record<string, unknown>;
    };
    security?: unknown;
  };

  // ErrorEnvelope carries an id in its meta, so zod-openapi answers a $ref and puts the schema in components.
  const envelope = createSchema(ErrorEnvelope);
  doc.components.schemas = {
    ...doc.components.schemas,
    ...envelope.components,
    ErrorEnvelope: envelope.components?.ErrorEnvelope ?? envelope.schema,
  };
  doc.components.headers = {
    XRequestId: {
      description: "uuid v7 of this request; equals `error.request_id`.",
      schema: { type: "string", format: "uuid" },
    },
    ...RATE_LIMIT_HEADER_COMPONENTS,
  };
  doc.components.responses = Object.fromEntries(
    Object.entries(ERROR_STATUSES).map(([status, description]) => [
      `Error${status}`,
      {
        description,
        headers: {
          "X-Request-Id": { $ref: "#/components/headers/XRequestId" },
          ...RATE_LIMIT_HEADERS,
          ...(status === "429" ? { "Retry-After": { $ref: "#/components/headers/RetryAfter" } } : {}),
        },
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/ErrorEnvelope" },
          },
        },
      },
    ]),
  );
  // Only routes behind a deployment feature flag can answer 503.
  doc.components.responses.Error503 = {
    description:
      "The route's feature is turned off on this deployment (`feature_not_available`, `api_error`).",
    headers: {
      "X-Request-Id": { $ref: "#/components/headers/XRequestId" },
      "Retry-After": {
        description: "Seconds after which to try again.",
        schema: { type: "integer" },
      },
    },
    content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
  };
  doc.components.responses.Error413 = {
    description: "The file or body is larger than the route takes (`file_too_large`, `request_too_large`).",
    headers: { "X-Request-Id": { $ref: "#/components/headers/XRequestId" } },
    content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
  };
  doc.security = [{ bearerAuth: [] }];

  for (const route of routes.routes) {
    const oasPath = route.path;
    if (route.stream) {
      doc.paths[oasPath] = { ...doc.paths[oasPath], [route.method.toLowerCase()]: streamOperation(route) };
    }
    const op = doc.paths[oasPath]?.[route.method.toLowerCase()];
    if (!op) continue;
    delete op.security;
    const success = String(route.meta.successStatus ?? 200);
    const responses = op.responses ?? {};
    const ok = (responses["200"] ?? { description: "Success" }) as Record<string, unknown>;
    delete responses["200"];
    for (const key of Object.keys(responses)) if (/^[45]\d\d$/.test(key)) delete responses[key];
    const extra = Object.fromEntries(
      (route.meta.produces ?? []).map((type) => [type, { schema: { type: "string" } }]),
    );
    responses[success] =
      success === "302"
        ? REDIRECT_RESPONSE
        : {
            ...ok,
            ...(route.meta.produces ? { content: { ...(ok.content as object), ...extra } } : {}),
            headers: { "X-Request-Id": { $ref: "#/components/headers/XRequestId" }, ...RATE_LIMIT_HEADERS },
          };
    for (const status of Object.keys(ERROR_STATUSES))
      responses[status] = { $ref: `#/components/responses/Error${status}` };
    op.responses = responses;
    // One scope as a string (every route but a few); routes that need several list them all.
    const scopes = [route.meta.scope ?? []].flat();
    if (scopes.length === 1) op["x-required-scope"] = scopes[0];
    if (scopes.length > 1) op["x-required-scopes"] = scopes;
    if (route.meta.sessionOnly) op["x-session-only"] = true;
    if (route.meta.public) {
      // Reached without credentials (device pairing): no security requirement.
      op["x-public"] = true;
      op.security = [];
    }
    if (route.meta.deprecation) op.deprecated = true;
    if (route.meta.unmetered) op["x-unmetered"] = true;
    if (route.meta.routeLimit) op["x-route-limit"] = route.meta.routeLimit;
    if (route.meta.feature) {
      responses["503"] = { $ref: "#/components/responses/Error503" };
      op["x-feature-flag"] = route.meta.feature;
    }
    if (route.meta.plans) op["x-plans"] = route.meta.plans;
    if (route.meta.upload) {
      (op as Record<string, unknown>).requestBody = multipartBody(route);
      responses["413"] = { $ref: "#/components/responses/Error413" };
    }
  }
  return doc as unknown as Record<string, unknown>;
}
