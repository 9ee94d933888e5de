import { defineConfig } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT ?? 3107);
const BASE_URL = `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: "./e2e",
  // One spec file at a time beside the API suite (`E2E_WORKERS` runs more: each test signs up users of its own).
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 1),
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
  // The build people run: dist/ started as docs/deployment.md starts it (e2e/serve-dist.mjs). `pnpm build` first.
  webServer: {
    command: "node e2e/serve-dist.mjs",
    port: PORT,
    reuseExistingServer: false,
    // A loaded machine can take minutes to start the server; a hung start still fails, just later.
    timeout: 300_000,
    stdout: "pipe",
    stderr: "pipe",
    // The databases and data folder the deployment made are removed when it stops.
    gracefulShutdown: { signal: "SIGTERM", timeout: 30_000 },
    env: {
      E2E_PORT: String(PORT),
      // DATABASE_URL and REDIS_URL pass through from the caller's environment: with DATABASE_URL (CI) the web
      // process and a separate worker share a fresh Postgres database; without it, PGlite in a fresh DATA_DIR.
      E2E_SERVER_ENV: JSON.stringify({
        // Webhooks are a beta feature behind a flag; the webhooks spec delivers to a receiver on loopback.
        WEBHOOKS_ENABLED: "true",
        WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
        // The plan page and quota specs test billing; a default install starts teams on the self-hosted plan.
        BILLING_ENABLED: "true",
        // Model keys point at loopback provider servers the specs start.
        AUTOUSER_ALLOW_PRIVATE_URLS: "true",
        // One access-log line per request would bury a failing spec's output; warnings and errors still show.
        LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
      }),
    },
  },
});
