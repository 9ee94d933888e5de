import {
  EVENT_STREAM_EVENTS,
  EventEnvelope,
  EventList,
  EventListQuery,
  EventStreamQuery,
  IdParam,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import { apiProcedure, router } from "../trpc/init";
import { toList } from "./list";
import { WEBHOOK_ROUTE_GATES as gates } from "./webhook-gates";

const tags = ["Events"];

export const eventsRouter = router({
  // GET /events — the team's event log, newest first: the polling fallback and the source for replays
  list: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/events",
        tags,
        summary: "List events",
        description:
          "Every event of the team, newest first, each exactly as webhook deliveries send it. Filter by `type` " +
          "or `object_id`. Events stay in the log whether or not any endpoint received them.",
      },
      scope: "events:read",
      ...gates,
    })
    .input(EventListQuery)
    .output(EventList)
    .query(async ({ ctx, input }) => toList(ctx, await core.listEvents(ctx.core, ctx.actor, input))),

  // GET /events/stream — the team's events live, for `rubricon listen` and other local development tools
  stream: apiProcedure
    .meta({
      stream: {
        method: "GET",
        path: "/events/stream",
        summary: "Stream events",
        description:
          "The team's events as they happen, each exactly as webhook deliveries send it, with the same scope, plan " +
          "and team rules as `GET /events`. `ready` comes first; then every event logged after the stream opened, " +
          "in log order. Each event's SSE id is the event's `id`: reconnect with `Last-Event-ID` to get every event " +
          "logged after it. Filter with `types`.",
        tags,
        events: EVENT_STREAM_EVENTS,
      },
      scope: "events:read",
      ...gates,
    })
    .input(EventStreamQuery)
    .subscription(async function* ({ ctx, input, signal }) {
      yield* core.streamTeamEvents(ctx.core, ctx.actor, { ...input, signal });
    }),

  // GET /events/{id} — one event
  get: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/events/{id}",
        tags,
        summary: "Retrieve an event",
        description: "One event exactly as webhook deliveries send it.",
      },
      scope: "events:read",
      ...gates,
    })
    .input(z.object({ id: IdParam }))
    .output(EventEnvelope)
    .query(({ ctx, input }) => core.getEvent(ctx.core, ctx.actor, input.id)),
});
