import { ErrorEnvelope } from "@rubricon/contracts";
import type { AnyRouter } from "@trpc/server";
import { generateOpenApiDocument, type OpenApiRouter } from "trpc-to-openapi";
import { createSchema } from "zod-openapi";
import type { Route, RouteTable } from "../http/route-table";
import { procedureDef } from "../trpc/internals";
import { apiVersionChangelog, apiVersionsDescription } from "../versions";
import { withCodeSamples } from "./code-samples";
import { accessNotes, TAGS } from "./descriptions";

type Operation = {
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
 * Which fields go together, as the input schema's own meta says it (`oneOf: [{ required: [...] }, ...]`): trpc-to-openapi
 * rebuilds the body schema from the input's fields without the path parameters, and drops those object-level rules.
 */
function carryBodyRules(route: Route, op: Operation): void {
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
      "Rubricon REST API: UX evaluations rated by people and autousers. Every error response carries the " +
      `ErrorEnvelope.\n\n${apiVersionsDescription()}`,
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
    tags?: { name: string; description: string }[];
  };

  (doc as unknown as { info: Record<string, unknown> }).info["x-api-versions"] = apiVersionChangelog();

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
    ETag: {
      description:
        "A strong entity tag of the body's bytes; send it back in `If-None-Match` to be answered `304` while the " +
        "body is unchanged.",
      schema: { type: "string" },
    },
    CacheControl: {
      description: "`private, no-cache`: a client may keep the body, and asks again with `If-None-Match`.",
      schema: { type: "string" },
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
          // Budgets are metered once the caller is known: a request refused for its credentials spends none.
          ...(status === "401" ? {} : RATE_LIMIT_HEADERS),
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
  // Every POST, PATCH and PUT reads its body under a size cap and as JSON (or multipart, for uploads).
  doc.components.responses.Error413 = {
    description: "The file or body is larger than the route takes (`file_too_large`, `request_too_large`).",
    headers: { "X-Request-Id": { $ref: "#/components/headers/XRequestId" }, ...RATE_LIMIT_HEADERS },
    content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
  };
  doc.components.responses.Error415 = {
    description:
      "The body is not in the media type the route reads: `application/json`, or `multipart/form-data` for an " +
      "upload (`unsupported_media_type`).",
    headers: { "X-Request-Id": { $ref: "#/components/headers/XRequestId" }, ...RATE_LIMIT_HEADERS },
    content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
  };
  doc.components.responses.Error410 = {
    description: "A deprecated route past its sunset (`route_sunset`); the message names its successor.",
    headers: { "X-Request-Id": { $ref: "#/components/headers/XRequestId" }, ...RATE_LIMIT_HEADERS },
    content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
  };
  // trpc-to-openapi registers its own error schemas; every error here answers the ErrorEnvelope instead.
  for (const name of Object.keys(doc.components.schemas ?? {}))
    if (name.startsWith("error.")) delete doc.components.schemas![name];
  // The specification declares Bearer as the single security scheme. The dashboard's session cookie is not a
  // scheme third parties use; the routes that take only it say so in their description and `x-session-only`.
  doc.security = [{ bearerAuth: [] }];
  const usedTags = new Set<string>();

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
    if (route.meta.reusedBody) conditionalGet(op, responses, success);
    op.responses = responses;
    // One scope as a string (every route but a few); routes that need several list them all.
    const scopes = [route.meta.scope ?? []].flat();
    if (scopes.length === 1) op["x-required-scope"] = scopes[0];
    if (scopes.length > 1) op["x-required-scopes"] = scopes;
    // The same meta `assertMayCall` enforces: a session-only route refuses keys and tokens with 403.
    if (route.meta.sessionOnly) op["x-session-only"] = true;
    if (route.meta.public) {
      // Reached without credentials (device pairing): no security requirement.
      op["x-public"] = true;
      op.security = [];
    }
    if (route.meta.deprecation) {
      op.deprecated = true;
      responses["410"] = { $ref: "#/components/responses/Error410" };
    }
    if (route.meta.unmetered) op["x-unmetered"] = true;
    if (route.meta.routeLimit) op["x-route-limit"] = route.meta.routeLimit;
    if (route.meta.feature) {
      responses["503"] = { $ref: "#/components/responses/Error503" };
      op["x-feature-flag"] = route.meta.feature;
    }
    if (route.meta.plans) op["x-plans"] = route.meta.plans;
    // zod-openapi puts a field's description on its schema; readers and tools look for it on the parameter.
    for (const param of (op.parameters ?? []) as {
      description?: string;
      schema?: { description?: string };
    }[])
      if (!param.description && param.schema?.description) param.description = param.schema.description;
    if (route.meta.upload) op.requestBody = multipartBody(route);
    else carryBodyRules(route, op);
    if (route.method === "POST" || route.method === "PATCH" || route.method === "PUT") {
      responses["413"] = { $ref: "#/components/responses/Error413" };
      responses["415"] = { $ref: "#/components/responses/Error415" };
    }
    op.description = [op.description, ...accessNotes(route.meta)].filter(Boolean).join("\n\n");
    for (const tag of op.tags ?? []) usedTags.add(tag);
  }
  doc.tags = [...usedTags].map((name) => {
    const description = TAGS[name];
    if (!description)
      throw new Error(`The OpenAPI tag \`${name}\` has no description in openapi/descriptions.ts.`);
    return { name, description };
  });
  return withCodeSamples(doc, `${baseUrl}/api/v1`) as unknown as Record<string, unknown>;
}

/**
 * A route answering a body it keeps (`reusedBody`) documents its validators: `ETag` and `Cache-Control` on the
 * success, the `If-None-Match` it reads, and the bodiless `304` a matching tag gets.
 */
function conditionalGet(op: Operation, responses: Record<string, unknown>, success: string): void {
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
