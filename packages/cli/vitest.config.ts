import { baseTestConfig, redisGlobalSetup } from "@rubricon/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// The API test servers these tests call count requests in Redis. Each test runs the installed CLI several times,
// a new Node process each, so a busy machine needs more than the default time.
export default mergeConfig(
  baseTestConfig,
  defineConfig({ test: { globalSetup: [redisGlobalSetup], testTimeout: 120_000 } }),
);
