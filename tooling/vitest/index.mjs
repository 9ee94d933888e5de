import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { UnhandledErrorsReporter } from "./unhandled-reporter.mjs";

/** Shared vitest settings: every test file gets its own process-level module graph and database. */
export const baseTestConfig = defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // The JSON report lets `pnpm test` list every failure last, where a CI log's tail shows it.
    reporters: ["default", "json", new UnhandledErrorsReporter()],
    outputFile: { json: "test-results/vitest.json" },
  },
});

/** A `globalSetup` entry for suites that run on Redis: fails the run up front when no Redis answers. */
export const redisGlobalSetup = fileURLToPath(new URL("./redis.mjs", import.meta.url));
