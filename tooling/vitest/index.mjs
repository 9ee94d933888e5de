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
