import { startSuiteDeployment, teardown } from "@rubricon/api/testing/global-dist";
import type { TestProject } from "vitest/node";

/**
 * What the CLI's tests need of a server: the event log and its stream, loopback receivers, and autousers that may
 * open the loopback fixture site. With `TEST_TARGET=dist` the suite runs against one deployment from dist/ started
 * with these settings (its worker runs the autouser runs); otherwise each test file starts the sources.
 */
export const CLI_SERVER_ENV = {
  WEBHOOKS_ENABLED: "true",
  WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
  AUTOUSER_ALLOW_PRIVATE_URLS: "true",
};

export function setup(project: TestProject): Promise<void> {
  return startSuiteDeployment(project, CLI_SERVER_ENV);
}

export { teardown };
