import { z } from "zod";

/** The date string carried as `api_version` in every event and answered for an unpinned `Service-Version`. */
export const API_VERSION = "2026-11-01";

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
