import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
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

/** Answers a `/metrics` request with the registry's text. */
export function serveMetrics(req: IncomingMessage, res: ServerResponse): void {
  registry.metrics().then(
    (text) =>
      res
        .writeHead(200, { "Content-Type": registry.contentType, "Cache-Control": "no-store" })
        .end(req.method === "HEAD" ? undefined : text),
    (err: unknown) => res.writeHead(500, { "Content-Type": "text/plain" }).end(`${(err as Error).message}\n`),
  );
}

/**
 * `/metrics` on the main port, for a platform that scrapes only the port it routes (`METRICS_TOKEN`): answered only
 * to `Authorization: Bearer <token>`, compared in constant time; anything else is 401 and never reaches the app.
 * True when the request was `/metrics` and has been answered.
 */
export function metricsOnMainPort(token: string): (req: IncomingMessage, res: ServerResponse) => boolean {
  const expected = createHash("sha256").update(token).digest();
  return (req, res) => {
    if ((req.url ?? "").split("?", 1)[0] !== "/metrics") return false;
    const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? "";
    if (!timingSafeEqual(createHash("sha256").update(given).digest(), expected)) {
      res
        .writeHead(401, { "Content-Type": "text/plain", "WWW-Authenticate": 'Bearer realm="metrics"' })
        .end("Unauthorized\n");
      return true;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD" }).end();
      return true;
    }
    serveMetrics(req, res);
    return true;
  };
}

/**
 * `/metrics` on its own port (`METRICS_PORT`), loopback by default (`METRICS_HOST`): reachable only where the
 * operator exposes it (the host's own scraper, a mapped port on a private network), so it needs no token.
 */
export async function listenMetrics(port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url?.split("?", 1)[0] !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("Not found\n");
      return;
    }
    serveMetrics(req, res);
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
