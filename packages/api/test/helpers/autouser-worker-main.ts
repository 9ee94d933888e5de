/**
 * An autouser worker as its own process, for tests that kill it: the loop `pnpm worker` runs, on the database
 * named in the JSON argument, with the lease the test chooses.
 */
import { systemClock } from "@rubricon/core";
import { createDatabase } from "@rubricon/db";
import { autouserRunLoop } from "../../src/background/autouser-runs";
import { startLoops } from "../../src/background/loops";
import { loadEnv } from "../../src/config/env";
import { TEST_SECRETS } from "./server";

interface WorkerConfig {
  databaseUrl: string;
  dataDir: string;
  leaseMs: number;
  heartbeatMs: number;
}

const config = JSON.parse(process.argv[2] ?? "{}") as WorkerConfig;
const env = loadEnv({
  ...TEST_SECRETS,
  NODE_ENV: "test",
  DATABASE_URL: config.databaseUrl,
  DATA_DIR: config.dataDir,
  AUTOUSER_ALLOW_PRIVATE_URLS: "true",
});
const database = createDatabase({ url: env.databaseUrl, maxConnections: 4 });
const loop = autouserRunLoop(
  { db: database.db, env, clock: systemClock },
  { leaseMs: config.leaseMs, heartbeatMs: config.heartbeatMs, pollMs: 50 },
);
const loops = startLoops([loop], (line) => process.stdout.write(`${line}\n`));
const keepAlive = setInterval(() => {}, 1 << 30);
process.stdout.write("ready\n");
process.once("SIGTERM", () => {
  clearInterval(keepAlive);
  void loops.stop().then(() => database.close());
});
