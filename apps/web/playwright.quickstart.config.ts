import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "@playwright/test";

/**
 * The quick-start smoke test (`pnpm --filter @rubricon/web test:quickstart`): a clean clone of HEAD started with the
 * README's `npm run quickstart` (quickstart/clone-and-start.mjs), then quickstart/quickstart.spec.ts through it.
 * The config is read by the runner and each worker; the clone's folder is fixed once through the environment.
 */
const PORT = Number(process.env.QUICKSTART_PORT ?? 3108);
process.env.QUICKSTART_CLONE ??= join(
  tmpdir(),
  `rubricon-quickstart-${Date.now()}-${process.pid}`,
  "rubricon",
);

export default defineConfig({
  testDir: "./quickstart",
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  timeout: 600_000,
  expect: { timeout: 15_000 },
  reporter: "list",
  use: {
    // The README's address: BASE_URL defaults to http://localhost:$PORT.
    baseURL: `http://localhost:${PORT}`,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-background-networking", "--disable-gpu", "--disable-dev-shm-usage"],
    },
  },
  projects: [{ name: "chromium", use: { browserName: "chromium" } }],
  webServer: {
    command: "node quickstart/clone-and-start.mjs",
    url: `http://localhost:${PORT}/readyz`,
    reuseExistingServer: false,
    // Clone, install, build (from the shared cache) and start.
    timeout: 900_000,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 30_000 },
    env: { QUICKSTART_PORT: String(PORT), QUICKSTART_CLONE: process.env.QUICKSTART_CLONE },
  },
});
