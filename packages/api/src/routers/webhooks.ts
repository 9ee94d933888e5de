import {
  DeletedObject,
  IdParam,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryList,
  WebhookDeliveryListQuery,
  WebhookEndpoint,
  WebhookEndpointCreateInput,
  WebhookEndpointList,
  WebhookEndpointListQuery,
  WebhookEndpointUpdateInput,
  WebhookEndpointWithSecret,
  WebhookSecretRotation,
  WebhookTestInput,
  WebhookTestResult,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import type { RouteLimit } from "../request/route-meta";
import { apiProcedure, router } from "../trpc/init";
import { toList } from "./list";
import { WEBHOOK_ROUTE_GATES as gates, webhooksContext } from "./webhook-gates";

const tags = ["Webhooks"];
const ById = z.object({ id: IdParam });
const DeliveryPath = z.object({ id: IdParam, deliveryId: IdParam });

const WEBHOOK_TEST_LIMIT: RouteLimit = {
  key: "id",
  noun: "endpoint",
  limit: 5,
  windowSec: 60,
  bucket: "webhook-test",
};

export const webhooksRouter = router({
  // GET /webhooks — the team's endpoints
  list: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/webhooks",
        tags,
        summary: "List webhook endpoints",
        description:
          "The team's webhook endpoints with their subscribed events and status; secrets are not shown.",
      },
      scope: "webhooks:read",
      ...gates,
    })
    .input(WebhookEndpointListQuery)
    .output(WebhookEndpointList)
    .query(async ({ ctx, input }) =>
      toList(ctx, await core.listWebhookEndpoints(webhooksContext(ctx), ctx.actor, input)),
    ),

  // POST /webhooks — subscribe a URL; the signing secret is in this answer only
  create: apiProcedure
    .meta({
      secretFields: ["secret"],
      openapi: {
        method: "POST",
        path: "/webhooks",
        tags,
        summary: "Create a webhook endpoint",
        description:
          "The URL must be https and resolve only to public addresses. The answer carries the signing secret " +
          "(`whsec_...`); it is not shown again (rotate it to get a new one).",
      },
      scope: "webhooks:write",
      successStatus: 201,
      ...gates,
    })
    .input(WebhookEndpointCreateInput)
    .output(WebhookEndpointWithSecret)
    .mutation(({ ctx, input }) => core.createWebhookEndpoint(webhooksContext(ctx), ctx.actor, input)),

  // GET /webhooks/{id} — one endpoint
  get: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/webhooks/{id}",
        tags,
        summary: "Retrieve a webhook endpoint",
        description: "One webhook endpoint with its subscribed events and status.",
      },
      scope: "webhooks:read",
      ...gates,
    })
    .input(ById)
    .output(WebhookEndpoint)
    .query(({ ctx, input }) => core.getWebhookEndpoint(webhooksContext(ctx), ctx.actor, input.id)),

  // PATCH /webhooks/{id} — change the URL, description or subscription; enable or disable
  update: apiProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/webhooks/{id}",
        tags,
        summary: "Update a webhook endpoint",
        description:
          "`status: disabled` pauses deliveries (queued ones wait); `status: enabled` resumes them and clears an " +
          "automatic `disabled_reason`.",
      },
      scope: "webhooks:write",
      ...gates,
    })
    .input(WebhookEndpointUpdateInput.extend({ id: IdParam }))
    .output(WebhookEndpoint)
    .mutation(({ ctx, input: { id, ...patch } }) =>
      core.updateWebhookEndpoint(webhooksContext(ctx), ctx.actor, id, patch),
    ),

  // DELETE /webhooks/{id} — stop deliveries for good; its delivery log goes with it
  delete: apiProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/webhooks/{id}",
        tags,
        summary: "Delete a webhook endpoint",
        description: "Stops deliveries to the endpoint for good; its delivery log is deleted with it.",
      },
      scope: "webhooks:write",
      ...gates,
    })
    .input(ById)
    .output(DeletedObject)
    .mutation(({ ctx, input }) => core.deleteWebhookEndpoint(webhooksContext(ctx), ctx.actor, input.id)),

  // POST /webhooks/{id}/rotate-secret — a new signing secret; the old one keeps signing for 24 hours
  rotateSecret: apiProcedure
    .meta({
      secretFields: ["secret"],
      openapi: {
        method: "POST",
        path: "/webhooks/{id}/rotate-secret",
        tags,
        summary: "Rotate the signing secret",
        description:
          "Answers the new secret, once. For the next 24 hours (`previousSecretValidUntil`) every delivery's " +
          "`Service-Signature` is still signed with the previous secret and `Service-Signature-Next` (same " +
          "`t=...,v1=...` format, same `t`) with the new one; afterwards only the new secret signs " +
          "`Service-Signature`. Deploy the new secret next to the old one (`@rubricon/webhooks` `verify` accepts " +
          "both), then drop the old one once the window has passed. Rotating again within the window replaces " +
          "the previous secret with the one current until then.",
      },
      scope: "webhooks:write",
      ...gates,
    })
    .input(ById.strict())
    .output(WebhookSecretRotation)
    .mutation(({ ctx, input }) => core.rotateWebhookSecret(webhooksContext(ctx), ctx.actor, input.id)),

  // POST /webhooks/{id}/test — a signed delivery of a made-up event; free of the budget and quotas, but each test
  // is a request to a host the team names, so an endpoint gets only a few a minute.
  test: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/webhooks/{id}/test",
        tags,
        summary: "Send a test event",
        description:
          "Queues a real, signed delivery of a representative event of `type` (event id `event_test_...`, " +
          "`data.object.id` with a `_test_` infix) and answers 202 at once; follow it in the delivery log. " +
          "Nothing else is written. Free: no request budget or quota is spent. The normal retry schedule applies.",
      },
      scope: "webhooks:write",
      successStatus: 202,
      unmetered: true,
      routeLimit: WEBHOOK_TEST_LIMIT,
      ...gates,
    })
    .input(WebhookTestInput.extend({ id: IdParam }))
    .output(WebhookTestResult)
    .mutation(({ ctx, input }) => core.sendTestEvent(webhooksContext(ctx), ctx.actor, input.id, input.type)),

  deliveries: router({
    // GET /webhooks/{id}/deliveries — the endpoint's delivery log, newest first
    list: apiProcedure
      .meta({
        openapi: {
          method: "GET",
          path: "/webhooks/{id}/deliveries",
          tags,
          summary: "List deliveries",
          description: "The endpoint's delivery log, newest first, filterable by status.",
        },
        scope: "webhooks:read",
        ...gates,
      })
      .input(WebhookDeliveryListQuery)
      .output(WebhookDeliveryList)
      .query(async ({ ctx, input: { id, ...query } }) =>
        toList(ctx, await core.listWebhookDeliveries(webhooksContext(ctx), ctx.actor, id, query)),
      ),

    // GET /webhooks/{id}/deliveries/{deliveryId} — one delivery with every attempt
    get: apiProcedure
      .meta({
        openapi: {
          method: "GET",
          path: "/webhooks/{id}/deliveries/{deliveryId}",
          tags,
          summary: "Retrieve a delivery",
          description: "With every attempt (status, time, the first 1 KB of the answer) and the event sent.",
        },
        scope: "webhooks:read",
        ...gates,
      })
      .input(DeliveryPath)
      .output(WebhookDeliveryDetail)
      .query(({ ctx, input }) =>
        core.getWebhookDelivery(webhooksContext(ctx), ctx.actor, input.id, input.deliveryId),
      ),

    // POST /webhooks/{id}/deliveries/{deliveryId}/retry — one more attempt now
    retry: apiProcedure
      .meta({
        openapi: {
          method: "POST",
          path: "/webhooks/{id}/deliveries/{deliveryId}/retry",
          tags,
          summary: "Retry a delivery",
          description:
            "Schedules an attempt now, whatever the delivery's state (a delivered one is sent again). Answers 202 " +
            "with the delivery; a failure continues the retry schedule where it left off.",
        },
        scope: "webhooks:write",
        successStatus: 202,
        ...gates,
      })
      .input(DeliveryPath.strict())
      .output(WebhookDelivery)
      .mutation(({ ctx, input }) =>
        core.retryWebhookDelivery(webhooksContext(ctx), ctx.actor, input.id, input.deliveryId),
      ),
  }),
});
