import { baseTestConfig, redisGlobalSetup } from "@rubricon/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// The API test servers these tests call count requests in Redis; with `TEST_TARGET=dist` they call one deployment
// from dist/ (test/global-dist.ts). Each test runs the installed CLI several times, a new Node process each, so a
// busy machine needs more than the default time.
export default mergeConfig(
  baseTestConfig,
  defineConfig({
    test: { globalSetup: [redisGlobalSetup, "./test/global-dist.ts"], testTimeout: 120_000 },
  }),
);
