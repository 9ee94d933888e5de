import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** Shared vitest settings: every test file gets its own process-level module graph and database. */
export const baseTestConfig = defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});

/** A `globalSetup` entry for suites that run on Redis: fails the run up front when no Redis answers. */
export const redisGlobalSetup = fileURLToPath(new URL("./redis.mjs", import.meta.url));
