import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT ?? 3107);
const BASE_URL = `http://127.0.0.1:${PORT}`;

/**
 * A fresh data directory per run, so the embedded database starts empty and no earlier run's lock or rows interfere.
 * Playwright loads this file in the runner and in each worker, so the directory is fixed once via the environment.
 */
process.env.RUBRICON_E2E_DATA_DIR ??= join(tmpdir(), `rubricon-e2e-${Date.now()}-${process.pid}`);
const DATA_DIR = process.env.RUBRICON_E2E_DATA_DIR;

export default defineConfig({
  testDir: "./e2e",
  fullyParallel: false,
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : "list",
  use: {
    baseURL: BASE_URL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    // Debian's Chromium: the Playwright-managed browsers are never downloaded.
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-background-networking", "--disable-gpu", "--disable-dev-shm-usage"],
    },
  },
  projects: [{ name: "chromium", use: { browserName: "chromium" } }],
  webServer: {
    command: "pnpm start",
    port: PORT,
    reuseExistingServer: false,
    // A loaded machine can take minutes to start the server; a hung start still fails, just later.
    timeout: 300_000,
    stdout: "pipe",
    stderr: "pipe",
    // DATABASE_URL passes through from the caller's environment untouched: set, the server uses that Postgres
    // (CI); unset, it uses PGlite in DATA_DIR.
    env: {
      PORT: String(PORT),
      BASE_URL,
      DATA_DIR,
      // Webhooks are a beta feature behind a flag; the webhooks spec delivers to a receiver on loopback.
      WEBHOOKS_ENABLED: "true",
      WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
      // The plan page and quota specs test billing; a default install starts teams on the self-hosted plan.
      BILLING_ENABLED: "true",
      // Model keys point at loopback provider servers the specs start.
      AUTOUSER_ALLOW_PRIVATE_URLS: "true",
      // One access-log line per request would bury a failing spec's output; warnings and errors still show.
      LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    },
  },
});
