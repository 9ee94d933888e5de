/**
 * A webhook delivery worker as its own process, for tests that kill it: the same loop `pnpm worker` runs, on the
 * database named in the JSON argument, with the time-out and retry schedule the test chooses.
 */
import { systemClock } from "@rubricon/core";
import { createDatabase } from "@rubricon/db";
import { startLoops } from "../../src/background/loops";
import { webhookDeliveryLoop } from "../../src/background/webhook-deliveries";
import { loadEnv } from "../../src/config/env";
import { TEST_SECRETS } from "./server";

interface WorkerConfig {
  databaseUrl: string;
  timeoutMs: number;
  leaseMs: number;
  retryDelaysMs: number[];
}

const config = JSON.parse(process.argv[2] ?? "{}") as WorkerConfig;
const env = loadEnv({
  ...TEST_SECRETS,
  NODE_ENV: "test",
  DATABASE_URL: config.databaseUrl,
  DATA_DIR: "/tmp/rubricon-test-data",
  WEBHOOKS_ENABLED: "true",
  WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
});
const database = createDatabase({ url: env.databaseUrl, maxConnections: 4 });
const loop = webhookDeliveryLoop(
  { db: database.db, env, clock: systemClock },
  { timeoutMs: config.timeoutMs, leaseMs: config.leaseMs, retryDelaysMs: config.retryDelaysMs },
);
const loops = startLoops([loop], (line) => process.stdout.write(`${line}\n`));
const keepAlive = setInterval(() => {}, 1 << 30);
process.stdout.write("ready\n");
process.once("SIGTERM", () => {
  clearInterval(keepAlive);
  void loops.stop().then(() => database.close());
});
