import { baseTestConfig, redisGlobalSetup, testWorkers } from "@rubricon/vitest-config";
import { defineConfig } from "vitest/config";

/**
 * Test servers count requests in Redis, as a deployment with `REDIS_URL` does. The suites about limits run a
 * second time on the in-process window that the embedded default (no `REDIS_URL`) uses.
 */
const LIMIT_SUITES = [
  "test/rate-limits.test.ts",
  "test/route-limits.test.ts",
  "test/quotas.test.ts",
  "test/usage.test.ts",
];

/**
 * The second pass on the embedded database (`pnpm test:pglite`, no `DATABASE_URL`) runs what depends on the
 * database engine: the schema and migrations, statements written by hand (leases, counters, pagination, the
 * idempotency records), transactions and the OAuth store. The rest reads the same Drizzle queries either way.
 */
const ENGINE_SUITES = [
  "test/smoke.test.ts",
  "test/startup.test.ts",
  "test/evaluations.test.ts",
  "test/ratings.test.ts",
  "test/results.test.ts",
  "test/pagination.test.ts",
  "test/list-indexes.test.ts",
  "test/idempotency.test.ts",
  "test/usage.test.ts",
  "test/quotas.test.ts",
  "test/events.test.ts",
  "test/webhook-deliveries.test.ts",
  "test/autouser-runs.test.ts",
  "test/oauth.test.ts",
  "test/files.test.ts",
  "test/teams.test.ts",
  "test/lifecycle.test.ts",
];
const pglitePass = process.env.TEST_PASS === "pglite";
/**
 * One file at a time (vitest's default on two cores; `TEST_WORKERS` raises it). Two at once beside the end-to-end
 * suite was tried: the files that drive a browser in-process against a page budget then missed it.
 */
const maxWorkers = pglitePass ? 1 : testWorkers();
/**
 * The files of a worker share its module graph instead of importing the app, the domain and the contracts again
 * each (every file already makes its own servers, databases, key prefixes and users, and restores what it
 * stubs): the suite took 337 s alone this way, where a sample of 30 files took 160 s isolated and 117 s shared.
 * The PGlite pass stays isolated: it was not measured shared, and each file's embedded databases are large.
 */
const isolate = pglitePass;

export default defineConfig({
  test: {
    // Reporters belong to the root of a config with projects; a project's own are ignored.
    reporters: baseTestConfig.test?.reporters,
    outputFile: baseTestConfig.test?.outputFile,
    projects: [
      {
        test: {
          ...baseTestConfig.test,
          name: "redis window",
          maxWorkers,
          isolate,
          // With `TEST_TARGET=dist`, one deployment from dist/ for the suite (test/global-dist.ts).
          globalSetup: [redisGlobalSetup, "./test/global-dist.ts"],
          ...(pglitePass ? { include: ENGINE_SUITES } : {}),
        },
      },
      ...(pglitePass
        ? []
        : [
            {
              test: {
                ...baseTestConfig.test,
                name: "memory window",
                maxWorkers,
                include: LIMIT_SUITES,
                env: { TEST_RATE_LIMIT_WINDOW: "memory" },
              },
            },
          ]),
    ],
  },
});
