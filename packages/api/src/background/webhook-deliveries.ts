import { DeliveryWorker, type DeliveryWorkerOptions } from "@rubricon/core";
import { deliveryObserver } from "../observability/work";
import type { AppServices } from "../request/services";
import { renderEventPayload } from "../versions";
import type { BackgroundLoop } from "./background-loop";

/** How soon after an event its deliveries start, at most (plus the time a busy pass takes). */
export const WEBHOOK_POLL_INTERVAL_MS = 250;

/**
 * Sends due webhook deliveries. Quiet while all goes well (the delivery log has every attempt); it reports
 * endpoints it disables, since there is no other notification for the team yet, and deliveries it could not
 * handle.
 */
export function webhookDeliveryLoop(
  services: Pick<AppServices, "db" | "env" | "clock">,
  overrides: Partial<DeliveryWorkerOptions> = {},
): BackgroundLoop {
  const worker = new DeliveryWorker({
    db: services.db,
    clock: services.clock,
    encryptionKey: services.env.encryptionKey,
    allowPrivateUrls: services.env.webhooksAllowPrivateUrls,
    observer: deliveryObserver,
    render: renderEventPayload,
    ...overrides,
  });
  return {
    name: "webhooks",
    intervalMs: WEBHOOK_POLL_INTERVAL_MS,
    leases: { queue: "webhook_deliveries", held: () => worker.held },
    async run() {
      const pass = await worker.runPass();
      const lines = [
        ...pass.disabled.map(
          (d) => `disabled endpoint ${d.endpointId} of team ${d.teamId} (notify the team): ${d.reason}`,
        ),
        ...pass.errors.map((e) => `delivery not completed, will be retried after its lease: ${e}`),
      ];
      return lines.length > 0 ? lines.join("\n") : null;
    },
    close: () => worker.close(),
  };
}
