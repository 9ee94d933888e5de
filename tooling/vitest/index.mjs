import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { UnhandledErrorsReporter } from "./unhandled-reporter.mjs";

/**
 * How many test files run at once: `TEST_WORKERS`, else `perCore` per core, else vitest's default (one fewer than
 * the cores: a single file at a time on a 2-core machine). Files that start browsers or compute in the embedded
 * database keep that default; `npm test` already runs two packages side by side.
 */
export function testWorkers(perCore) {
  const given = Number(process.env.TEST_WORKERS);
  if (Number.isInteger(given) && given > 0) return given;
  if (perCore === undefined) return undefined;
  return Math.max(1, Math.round(availableParallelism() * perCore));
}

const passSuffix = process.env.TEST_PASS ? `-${process.env.TEST_PASS}` : "";

/** Shared vitest settings: every test file gets its own process-level module graph and database. */
export const baseTestConfig = defineConfig({
  test: {
    maxWorkers: testWorkers(),
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // As the end-to-end suite does on CI: a test that measures time (readiness within a second, a page budget) may
    // meet a busy moment of the 2-core machine once; failing twice in a row fails the run.
    retry: process.env.CI ? 1 : 0,
    pool: "forks",
    // The JSON report lets `pnpm test` list every failure last, where a CI log's tail shows it.
    reporters: ["default", "json", new UnhandledErrorsReporter()],
    // A second pass of one package (`TEST_PASS`, the API's on PGlite) may run beside the first: reports of its own.
    outputFile: { json: `test-results/vitest${passSuffix}.json` },
  },
});

/** A `globalSetup` entry for suites that run on Redis: fails the run up front when no Redis answers. */
export const redisGlobalSetup = fileURLToPath(new URL("./redis.mjs", import.meta.url));
