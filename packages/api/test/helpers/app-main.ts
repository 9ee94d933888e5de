/**
 * The API as its own process, for tests that kill it mid-request: the same app the production server hosts, on
 * the database named in the JSON argument, listening on a loopback port it prints as `listening <url>`.
 */
import { createDatabase } from "@rubricon/db";
import { createRubricon } from "../../src/app";
import { loadEnv } from "../../src/config/env";
import { listen } from "../../src/http/node-server";
import { TEST_SECRETS } from "./server";

const { databaseUrl, env = {} } = JSON.parse(process.argv[2] ?? "{}") as {
  databaseUrl: string;
  /** Settings on top of the defaults below (a shared Redis, webhooks on, a files directory). */
  env?: Record<string, string>;
};
let app: Awaited<ReturnType<typeof createRubricon>> | undefined;
const { url } = await listen({
  handleNode: (req, res, forwardedFor) => app!.handleNode(req, res, forwardedFor),
});
app = await createRubricon({
  env: loadEnv({
    ...TEST_SECRETS,
    NODE_ENV: "test",
    BASE_URL: url,
    DATABASE_URL: databaseUrl,
    DATA_DIR: "/tmp/rubricon-test-data",
    EMBEDDED_WORKER: "false",
    PASSWORD_HASH_LOG_N: "12",
    ...env,
  }),
  database: createDatabase({ url: databaseUrl, maxConnections: 4 }),
});
process.stdout.write(`listening ${url}\n`);
