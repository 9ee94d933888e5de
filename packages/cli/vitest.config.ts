import { baseTestConfig, redisGlobalSetup } from "@rubricon/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// The API test servers these tests call count requests in Redis.
export default mergeConfig(baseTestConfig, defineConfig({ test: { globalSetup: [redisGlobalSetup] } }));
