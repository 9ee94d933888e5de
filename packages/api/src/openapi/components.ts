export const ERROR_STATUSES: Record<string, string> = {
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

export const RATE_LIMIT_HEADERS = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/XRateLimitLimit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/XRateLimitRemaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/XRateLimitReset" },
};

export const REDIRECT_RESPONSE = {
  description: "Redirect to a short-lived URL; follow `Location` at once. The response is never cached.",
  headers: {
    Location: { description: "Where to go.", schema: { type: "string", format: "uri" } },
    "Cache-Control": { description: "Always `no-store`.", schema: { type: "string", const: "no-store" } },
    "X-Request-Id": { $ref: "#/components/headers/XRequestId" },
    ...RATE_LIMIT_HEADERS,
  },
};

/** The shared response headers: the request id, the validators of a kept body, and the rate-limit budget. */
export function headerComponents(): Record<string, unknown> {
  return {
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
}

/** One response per error status, each answering the ErrorEnvelope. */
export function errorResponses(): Record<string, unknown> {
  const responses: Record<string, unknown> = Object.fromEntries(
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
  responses.Error503 = {
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
  responses.Error413 = {
    description: "The file or body is larger than the route takes (`file_too_large`, `request_too_large`).",
    headers: { "X-Request-Id": { $ref: "#/components/headers/XRequestId" }, ...RATE_LIMIT_HEADERS },
    content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
  };
  responses.Error415 = {
    description:
      "The body is not in the media type the route reads: `application/json`, or `multipart/form-data` for an " +
      "upload (`unsupported_media_type`).",
    headers: { "X-Request-Id": { $ref: "#/components/headers/XRequestId" }, ...RATE_LIMIT_HEADERS },
    content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
  };
  responses.Error410 = {
    description: "A deprecated route past its sunset (`route_sunset`); the message names its successor.",
    headers: { "X-Request-Id": { $ref: "#/components/headers/XRequestId" }, ...RATE_LIMIT_HEADERS },
    content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
  };
  return responses;
}
