import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { Plan } from "@rubricon/contracts";
import type { Clock } from "@rubricon/core";
import { createDatabase } from "@rubricon/db";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { testRedisUrl } from "@rubricon/vitest-config/redis";
import { inject } from "vitest";
import type { Rubricon } from "../../src/app";

export { TEST_SECRETS } from "./server-secrets";

import { TEST_SECRETS } from "./server-secrets";

export interface TestServer {
  url: string;
  api: string;
  /** The app's internals: only on the sources (a server from dist/ runs in a process of its own). */
  app: Rubricon;
  database: TestDatabase;
  /** Where this server runs: the deployable build (`dist`, shared by the suite) or the sources in this process. */
  target: "dist" | "sources";
  /** Puts a team on a plan, as the operator CLI's `set-plan` does. */
  setPlan(teamId: string, plan: Plan): Promise<void>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  clock?: Clock;
  /** Settings on top of the test defaults, e.g. `RATE_LIMIT_MODE` or a shared `REDIS_KEY_PREFIX`. */
  env?: Record<string, string>;
  /** Another server's database, to run a second instance of the app on it; its owner disposes of it. */
  database?: TestDatabase;
  /**
   * Why this server must run from the sources in the test's own process (it reads the app's internals, say). A
   * test clock, settings of its own or a shared database mean the same: those cannot reach the suite's one server
   * from dist/.
   */
  sources?: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The suite's one server from dist/, when the run tests the build (`TEST_TARGET=dist`, test/global-dist.ts). */
    distServer: { url: string; databaseUrl: string; env: Record<string, string> } | undefined;
  }
}

/**
 * The suite's server from dist/ (test/global-dist.ts), when the run tests the build (`TEST_TARGET=dist`). Child
 * processes that load these helpers outside vitest (test/helpers/*-main.ts) have none.
 */
const shared = (() => {
  try {
    return inject("distServer");
  } catch {
    return undefined;
  }
})();

/** Whether the suite's deployment was started with `env` (a data folder of the test's own is no difference). */
function runsOn(dist: NonNullable<typeof shared>, env: Record<string, string> = {}): boolean {
  return Object.entries(env).every(([key, value]) => key === "DATA_DIR" || dist.env[key] === value);
}
let sharedDatabase: TestDatabase | undefined;

/**
 * The suite's one server from dist/: every file shares its database (each test signs up users and teams of its
 * own). The test's handle on that database reads and writes rows as the sources' tests do.
 */
function sharedDistServer(dist: NonNullable<typeof shared>): TestServer {
  sharedDatabase ??= (() => {
    const database = createDatabase({ url: dist.databaseUrl, maxConnections: 3 });
    return { ...database, url: dist.databaseUrl, dispose: async () => {} };
  })();
  const database = sharedDatabase;
  return {
    url: dist.url,
    api: `${dist.url}/api/v1`,
    target: "dist",
    get app(): Rubricon {
      throw new Error(
        "this test reads the app's internals, which a server from dist/ does not expose: give startTestServer " +
          "a `sources` reason",
      );
    },
    database,
    async setPlan(teamId, plan) {
      // Loaded when a test sets a plan: the domain's modules cost about a second per file to import.
      const { setTeamPlan, systemClock } = await import("@rubricon/core");
      await setTeamPlan({ db: database.db, clock: systemClock, baseUrl: dist.url }, teamId, plan);
    },
    async close() {},
  };
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
  if (shared && !opts.sources && !opts.clock && !opts.database && runsOn(shared, opts.env)) {
    return sharedDistServer(shared);
  }
  // Loaded here, not at the top: a file whose tests all run on the suite's server from dist/ then never compiles
  // the app's sources (seconds per file, in every worker).
  const [{ setTeamPlan, systemClock }, { createRubricon }, { loadEnv }, { forwardedForOf }, { listen }] =
    await Promise.all([
      import("@rubricon/core"),
      import("../../src/app"),
      import("../../src/config/env"),
      import("../../src/http/api-message"),
      import("../../src/http/node-server"),
    ]);
  const redisUrl = testRateLimitWindow === "redis" ? await testRedisUrl() : undefined;
  const database = opts.database ?? (await createTestDatabase());
  let app: Rubricon | undefined;
  const { server, url } = await listen({
    // As server-main.ts does: behind trusted proxies their chain is read, otherwise the peer is the client.
    handleNode: (req, res) => app!.handleNode(req, res, forwardedForOf(app!.services.env.trustedProxyCount)),
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
    app: app!,
    database,
    target: "sources",
    async setPlan(teamId, plan) {
      const { db, clock, env } = app!.services;
      await setTeamPlan({ db, clock, baseUrl: env.baseUrl }, teamId, plan);
    },
    async close() {
      await new Promise<void>((resolve) => (server as Server).close(() => resolve()));
      await app?.close();
      if (!opts.database) await database.dispose();
    },
  };
}
