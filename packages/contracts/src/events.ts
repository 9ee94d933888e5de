import { z } from "zod";
import { LATEST_API_VERSION } from "./versions";

/**
 * The newest API version: the shape events are stored in, answered to a caller pinned to no team. A webhook
 * endpoint receives them rendered in its own version, which its `api_version` then names.
 */
export const API_VERSION = LATEST_API_VERSION;

export const EVENT_TYPES = [
  "evaluation.created",
  "evaluation.status_changed",
  "evaluation.completed",
  "autouser_run.completed",
  "autouser_run.failed",
  "rating.created",
  "calibration.frozen",
  "evaluation.transferred_out",
  "evaluation.transferred_in",
] as const;
export const EventType = z.enum(EVENT_TYPES);
export type EventType = (typeof EVENT_TYPES)[number];

export const EventEnvelope = z
  .object({
    id: z.string(),
    object: z.literal("event"),
    type: z.string().meta({
      description: "One of the event types; receivers ignore types they do not know.",
    }),
    api_version: z.string(),
    created: z.number().int(),
    team_id: z.string(),
    data: z.object({ object: z.record(z.string(), z.unknown()) }),
    request: z.object({
      id: z.string().nullable(),
      idempotency_key: z.string().nullable(),
    }),
  })
  .meta({ id: "Event" });
export type EventEnvelope = z.infer<typeof EventEnvelope>;
