import type { WebhooksContext } from "@rubricon/core";
import type { RequestContext } from "../request/context";
import { coreContext } from "../request/context";
import type { RouteMeta } from "../request/route-meta";

/** Webhooks and the event log are a beta feature behind `WEBHOOKS_ENABLED`, for Pro and Enterprise teams, and
 * every team of a deployment that does not bill. */
export const WEBHOOK_ROUTE_GATES = {
  feature: "webhooks",
  plans: ["pro", "enterprise", "self_hosted"],
} satisfies Pick<RouteMeta, "feature" | "plans">;

/** The core context plus the webhook settings taken from the deployment's configuration. */
export function webhooksContext(ctx: RequestContext): WebhooksContext {
  const { env } = ctx.services;
  return {
    ...coreContext(ctx),
    webhooks: { encryptionKey: env.encryptionKey, allowPrivateUrls: env.webhooksAllowPrivateUrls },
  };
}
