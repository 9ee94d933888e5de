import { baseTestConfig, redisGlobalSetup } from "@rubricon/vitest-config";
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

export default defineConfig({
  test: {
    // Reporters belong to the root of a config with projects; a project's own are ignored.
    reporters: baseTestConfig.test?.reporters,
    outputFile: baseTestConfig.test?.outputFile,
    projects: [
      { test: { ...baseTestConfig.test, name: "redis window", globalSetup: [redisGlobalSetup] } },
      {
        test: {
          ...baseTestConfig.test,
          name: "memory window",
          include: LIMIT_SUITES,
          env: { TEST_RATE_LIMIT_WINDOW: "memory" },
        },
      },
    ],
  },
});
