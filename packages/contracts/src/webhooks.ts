import { z } from "zod";
import { DateTime, IdParam } from "./common";
import { EVENT_TYPES, EventEnvelope, EventType } from "./events";
import { listOf, PageQueryShape, withCursorRules } from "./pagination";

/** Every signing secret starts with this, so a secret pasted in the wrong place is recognisable. */
export const WEBHOOK_SECRET_PREFIX = "whsec_";

/** How long the secret replaced by a rotation keeps signing `Service-Signature`. */
export const PREVIOUS_SECRET_VALIDITY_MS = 24 * 60 * 60 * 1000;

export const WEBHOOK_ENDPOINT_STATUSES = ["enabled", "disabled"] as const;
export const WebhookEndpointStatus = z.enum(WEBHOOK_ENDPOINT_STATUSES);
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

/**
 * `pending`: waiting for its first (or a manually requested) attempt; `retrying`: the last attempt failed and the
 * next is scheduled; `delivered`: a 2xx answer; `abandoned`: the retry schedule is exhausted.
 */
export const WEBHOOK_DELIVERY_STATUSES = ["pending", "retrying", "delivered", "abandoned"] as const;
export const WebhookDeliveryStatus = z.enum(WEBHOOK_DELIVERY_STATUSES);
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

const teamIdField = z.string().min(1).max(100).meta({
  description:
    "Team to act on (signed-in callers in several teams); keys and OAuth tokens act on their own team.",
});

/** The subscription: some of the event types, or `["*"]` for all, present and future. */
export const EnabledEvents = z
  .array(z.union([EventType, z.literal("*")]))
  .min(1)
  .max(20)
  .superRefine((list, ctx) => {
    if (list.includes("*") && list.length > 1) {
      ctx.addIssue({ code: "custom", message: '`"*"` subscribes to every type and must be the only entry.' });
    }
    if (new Set(list).size !== list.length) {
      ctx.addIssue({ code: "custom", message: "Each event type may be listed once." });
    }
  })
  .meta({ description: 'Event types to receive, or `["*"]` for all of them.' });

const WebhookUrl = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .meta({
    description:
      "Where deliveries are POSTed: an https URL whose host resolves only to public addresses (checked again " +
      "before every delivery).",
    example: "https://example.com/webhooks/rubricon",
  });

export const WebhookEndpoint = z
  .object({
    id: z.string(),
    object: z.literal("webhook_endpoint"),
    teamId: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    enabled_events: z.array(z.string()),
    apiVersion: z.string().meta({
      description:
        "The API version event payloads are rendered in for this endpoint: the version of the request that " +
        "created it (its `Service-Version`, else the team's).",
      example: "2026-11-25",
    }),
    status: WebhookEndpointStatus,
    disabled_reason: z
      .string()
      .nullable()
      .meta({
        description:
          "Why the endpoint was disabled automatically (it kept failing or answered 410 Gone); null when it is " +
          "enabled or was disabled by a user.",
      }),
    disabledAt: DateTime.nullable(),
    secretRotatedAt: DateTime.nullable(),
    previousSecretValidUntil: DateTime.nullable().meta({
      description:
        "Until then deliveries are still signed with the secret replaced by the last rotation, and carry " +
        "`Service-Signature-Next` signed with the new one.",
    }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: "WebhookEndpoint" });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z.string().meta({
    description: "The signing secret (`whsec_...`). Shown only now and on rotation; store it.",
  }),
}).meta({ id: "WebhookEndpointWithSecret" });
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecret>;

export const WebhookEndpointList = listOf(WebhookEndpoint, "WebhookEndpointList");

export const WebhookEndpointListQuery = withCursorRules(
  z.object({ ...PageQueryShape, teamId: teamIdField.optional() }),
);

export const WebhookEndpointCreateInput = z
  .object({
    teamId: teamIdField.optional(),
    url: WebhookUrl,
    description: z.string().max(500).nullable().optional(),
    enabled_events: EnabledEvents,
  })
  .strict();
export type WebhookEndpointCreateInput = z.infer<typeof WebhookEndpointCreateInput>;

export const WebhookEndpointUpdateInput = z
  .object({
    url: WebhookUrl.optional(),
    description: z.string().max(500).nullable().optional(),
    enabled_events: EnabledEvents.optional(),
    status: WebhookEndpointStatus.meta({
      description: "`disabled` pauses deliveries (they wait, nothing is dropped); `enabled` resumes them.",
    }).optional(),
  })
  .strict();
export type WebhookEndpointUpdateInput = z.infer<typeof WebhookEndpointUpdateInput>;

export const WebhookSecretRotation = z
  .object({
    id: z.string(),
    secret: z.string().meta({ description: "The new signing secret. Shown only now; store it." }),
    rotatedAt: DateTime,
    previousSecretValidUntil: DateTime,
  })
  .meta({ id: "WebhookSecretRotation" });
export type WebhookSecretRotation = z.infer<typeof WebhookSecretRotation>;

export const WebhookTestInput = z
  .object({ type: EventType.meta({ description: "The event type to simulate." }) })
  .strict();

export const WebhookTestResult = z
  .object({
    deliveryId: z.string(),
    eventId: z.string(),
    status: z.literal("pending"),
    synthetic: z.literal(true),
    scheduledFor: DateTime,
  })
  .meta({ id: "WebhookTestResult" });
export type WebhookTestResult = z.infer<typeof WebhookTestResult>;

export const WebhookDeliveryAttempt = z
  .object({
    number: z.number().int().min(1),
    startedAt: DateTime,
    durationMs: z.number().int().min(0),
    succeeded: z.boolean(),
    statusCode: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The receiver's HTTP status; null without one." }),
    responseBody: z
      .string()
      .nullable()
      .meta({ description: "The start of the receiver's answer (at most 1 KB)." }),
    error: z
      .string()
      .nullable()
      .meta({ description: "Why the attempt failed without an answer (time-out, refused)." }),
  })
  .meta({ id: "WebhookDeliveryAttempt" });
export type WebhookDeliveryAttempt = z.infer<typeof WebhookDeliveryAttempt>;

export const WebhookDelivery = z
  .object({
    id: z.string(),
    object: z.literal("webhook_delivery"),
    endpointId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    status: WebhookDeliveryStatus,
    synthetic: z.boolean().meta({ description: "True for test deliveries (`POST /webhooks/{id}/test`)." }),
    attemptCount: z.number().int().min(0),
    nextAttemptAt: DateTime.nullable(),
    lastAttemptAt: DateTime.nullable(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    deliveredAt: DateTime.nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: "WebhookDelivery" });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const WebhookDeliveryDetail = WebhookDelivery.extend({
  attempts: z.array(WebhookDeliveryAttempt).meta({ description: "Every attempt, oldest first." }),
  event: EventEnvelope.meta({ description: "The exact event body this delivery sends." }),
}).meta({ id: "WebhookDeliveryDetail" });
export type WebhookDeliveryDetail = z.infer<typeof WebhookDeliveryDetail>;

export const WebhookDeliveryList = listOf(WebhookDelivery, "WebhookDeliveryList");

export const WebhookDeliveryListQuery = withCursorRules(
  z.object({
    ...PageQueryShape,
    id: IdParam,
    status: WebhookDeliveryStatus.meta({ description: "Only deliveries in this state." }).optional(),
  }),
);

export const EventList = listOf(EventEnvelope, "EventList");

export const EventListQuery = withCursorRules(
  z.object({
    ...PageQueryShape,
    teamId: teamIdField.optional(),
    type: EventType.meta({ description: "Only events of this type." }).optional(),
    object_id: z
      .string()
      .min(1)
      .max(100)
      .meta({ description: "Only events about this object (`data.object.id`)." })
      .optional(),
  }),
);

/** `GET /events/stream`: the team's events live, as `rubricon listen` forwards them. */
export const EventStreamQuery = z
  .object({
    teamId: teamIdField.optional(),
    types: z
      .string()
      .max(1000)
      .regex(/^[a-z_.,]+$/, "Event types are lowercase words joined by dots, separated by commas.")
      .refine(
        (value) => value.split(",").every((t) => (EVENT_TYPES as readonly string[]).includes(t)),
        "Every type must be one of the event types.",
      )
      .meta({ description: "Only these event types, comma-separated (`evaluation.created,rating.created`)." })
      .optional(),
    lastEventId: z.string().min(1).max(100).optional(),
  })
  .strict();
export type EventStreamQuery = z.infer<typeof EventStreamQuery>;

export const EVENT_STREAM_EVENTS = {
  ready:
    '`{object: "event_stream", teamId}`, first: the stream is live; events that happen from now on follow (sent again on resume, without an id)',
  ...Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      "the event, exactly as webhook deliveries send it; its `id` is the SSE id",
    ]),
  ),
} as Record<string, string>;
