import { baseTestConfig, redisGlobalSetup } from "@rubricon/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// The API test server these tests call counts requests in Redis.
export default mergeConfig(
  baseTestConfig,
  defineConfig({ test: { globalSetup: [redisGlobalSetup], testTimeout: 120_000 } }),
);
