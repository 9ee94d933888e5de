import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { type Clock, systemClock } from "@rubricon/core";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { testRedisUrl } from "@rubricon/vitest-config/redis";
import { createRubricon, type Rubricon } from "../../src/app";
import { loadEnv } from "../../src/config/env";
import { listen } from "../../src/http/node-server";

export const TEST_SECRETS = {
  OAUTH_JWT_SECRET: "test-oauth-secret-0123456789abcdef0123456789",
  PLUGIN_JWT_SECRET: "test-plugin-secret-0123456789abcdef012345678",
  ENCRYPTION_KEY: "0".repeat(64),
};

export interface TestServer {
  url: string;
  api: string;
  app: Rubricon;
  database: TestDatabase;
  close(): Promise<void>;
}

export interface TestServerOptions {
  clock?: Clock;
  /** Settings on top of the test defaults, e.g. `RATE_LIMIT_MODE` or a shared `REDIS_KEY_PREFIX`. */
  env?: Record<string, string>;
  /** Another server's database, to run a second instance of the app on it; its owner disposes of it. */
  database?: TestDatabase;
}

/**
 * Where test servers count requests: Redis (`REDIS_URL`, else 127.0.0.1:6379), or the in-process window of the
 * embedded default when the run sets `TEST_RATE_LIMIT_WINDOW=memory` (the second pass of the limit suites).
 */
export const testRateLimitWindow: "redis" | "memory" =
  process.env.TEST_RATE_LIMIT_WINDOW === "memory" ? "memory" : "redis";

/**
 * The real HTTP surface on a loopback port with a fresh, migrated database of its own. On the Redis window, rate
 * limits live under a key prefix of this server's own, unless `env` names a shared one.
 */
export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const redisUrl = testRateLimitWindow === "redis" ? await testRedisUrl() : undefined;
  const database = opts.database ?? (await createTestDatabase());
  let app: Rubricon | undefined;
  const { server, url } = await listen({
    handleNode: (req, res, forwardedFor) => app!.handleNode(req, res, forwardedFor),
  });
  const env = loadEnv({
    ...TEST_SECRETS,
    NODE_ENV: "test",
    BASE_URL: url,
    DATA_DIR: "/tmp/rubricon-test-data",
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: `rubricon-test:${randomBytes(6).toString("hex")}:`,
    // A cheap password hash keeps the suite fast; the production cost has tests of its own.
    PASSWORD_HASH_LOG_N: "12",
    // Plans and quotas are what most limit suites test; `BILLING_ENABLED: "false"` gives the default install.
    BILLING_ENABLED: "true",
    ...opts.env,
  });
  app = await createRubricon({
    env,
    database,
    clock: opts.clock ?? systemClock,
  });
  return {
    url,
    api: `${url}/api/v1`,
    app,
    database,
    async close() {
      await new Promise<void>((resolve) => (server as Server).close(() => resolve()));
      await app?.close();
      if (!opts.database) await database.dispose();
    },
  };
}
