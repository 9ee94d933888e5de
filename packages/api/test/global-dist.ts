import { type Deployment, startDeployment } from "@rubricon/vitest-config/dist";
import type { TestProject } from "vitest/node";
// Types only: the provided context is declared beside its reader; the module itself runs in test workers.
import type {} from "./helpers/server";
import { TEST_SECRETS } from "./helpers/server-secrets";

/**
 * `TEST_TARGET=dist` (CI): the suite's HTTP tests run against one deployment started from dist/ as
 * docs/deployment.md starts it (migrate, then web, then a worker with `REDIS_URL`), on its own Postgres database.
 * Tests that need the app's internals, a test clock or settings of their own still start the sources in their
 * own process (test/helpers/server.ts).
 */
let deployment: Deployment | undefined;

/**
 * Starts the suite's deployment with the test servers' settings plus `env`: a suite whose tests all ask for the same
 * settings (the CLI's) starts it with those, and `startTestServer({ env })` then answers it.
 */
export async function startSuiteDeployment(
  project: TestProject,
  env: Record<string, string> = {},
): Promise<void> {
  if (process.env.TEST_TARGET !== "dist") {
    project.provide("distServer", undefined);
    return;
  }
  if (!process.env.DATABASE_URL) {
    throw new Error(
      "TEST_TARGET=dist runs the web process and a worker on one Postgres database: set DATABASE_URL",
    );
  }
  deployment = await startDeployment({
    env: {
      ...TEST_SECRETS,
      // What the sources' test servers set (test/helpers/server.ts): plans and quotas on, a cheap password hash.
      BILLING_ENABLED: "true",
      PASSWORD_HASH_LOG_N: "12",
      // Each test user signs up from an address of its own (helpers/clients.ts): the test plays the one proxy
      // that writes the client's address, as nginx does in compose.yaml.
      TRUSTED_PROXY_COUNT: "1",
      ...env,
    },
  });
  project.provide("distServer", {
    url: deployment.url,
    databaseUrl: deployment.databaseUrl!,
    env: deployment.env,
  });
}

export function setup(project: TestProject): Promise<void> {
  return startSuiteDeployment(project);
}

export async function teardown(): Promise<void> {
  await deployment?.stop();
}
