import { createServer, type Server } from "node:http";
import {
  autouserRunQueue,
  oldestPendingDeliveryAge,
  oldestQueuedRunAge,
  oldestQueuedTallyAge,
  ratingTallyQueue,
  webhookDeliveryQueue,
} from "@rubricon/core";
import type { Db } from "@rubricon/db";
import { gaugeOnScrape, registry } from "./metrics";

/**
 * `/metrics` on its own port (`METRICS_PORT`), never on the API's: the port is reachable only where the operator
 * exposes it (a private network, the Prometheus scraper), so it needs no token.
 */
export async function listenMetrics(port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url?.split("?", 1)[0] !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("Not found\n");
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "Content-Type": registry.contentType }).end(text),
      (err: unknown) =>
        res.writeHead(500, { "Content-Type": "text/plain" }).end(`${(err as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server;
}

let queuesOn = false;

/**
 * Queue depths read at scrape time, one cheap query each (the claim indexes cover them): autouser runs waiting and
 * running and the oldest waiting run's age; webhook deliveries pending, retrying and abandoned and the oldest
 * pending one's age; ratings queued for their evaluations' stored tallies and the oldest one's age.
 */
export function registerQueueGauges(db: Db): void {
  if (queuesOn) return;
  queuesOn = true;
  gaugeOnScrape(
    "rubricon_autouser_runs",
    "Autouser runs waiting or in progress, by status",
    ["status"],
    async (set) => {
      const rows = await autouserRunQueue(db);
      for (const status of ["queued", "running"])
        set({ status }, rows.find((r) => r.status === status)?.n ?? 0);
    },
  );
  gaugeOnScrape(
    "rubricon_autouser_oldest_queued_seconds",
    "Age of the oldest queued autouser run (0 when none waits)",
    [],
    async (set) => {
      set({}, Math.max(0, (await oldestQueuedRunAge(db)) ?? 0));
    },
  );
  gaugeOnScrape(
    "rubricon_webhook_deliveries",
    "Webhook deliveries not yet delivered, by status",
    ["status"],
    async (set) => {
      const rows = await webhookDeliveryQueue(db);
      for (const status of ["pending", "retrying", "abandoned"])
        set({ status }, rows.find((r) => r.status === status)?.n ?? 0);
    },
  );
  gaugeOnScrape(
    "rubricon_webhook_oldest_pending_seconds",
    "Age of the oldest delivery still waiting for its first or next attempt (0 when none)",
    [],
    async (set) => {
      set({}, Math.max(0, (await oldestPendingDeliveryAge(db)) ?? 0));
    },
  );
  gaugeOnScrape(
    "rubricon_rating_tally_queued",
    "New ratings waiting to be folded into their evaluations' stored tallies",
    [],
    async (set) => {
      set({}, await ratingTallyQueue(db));
    },
  );
  gaugeOnScrape(
    "rubricon_rating_tally_oldest_queued_seconds",
    "Age of the oldest rating waiting to be folded into its stored tally (0 when none waits)",
    [],
    async (set) => {
      set({}, Math.max(0, (await oldestQueuedTallyAge(db)) ?? 0));
    },
  );
}

/** Requests being answered now, read at scrape time from the server's own count. */
export function registerInFlight(read: () => number): void {
  gaugeOnScrape("rubricon_http_requests_in_flight", "Requests being answered now", [], (set) =>
    set({}, read()),
  );
}

/** Leases this process holds, by queue, read at scrape time from its loops (a worker's share of the work). */
export function registerWorkGauges(held: () => Record<string, number>): void {
  gaugeOnScrape(
    "rubricon_worker_leases_held",
    "Autouser runs and webhook deliveries this process holds a lease on, by queue",
    ["queue"],
    (set) => {
      for (const [queue, n] of Object.entries(held())) set({ queue }, n);
    },
  );
}
