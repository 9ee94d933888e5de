import { chromium } from "playwright-core";
import { chromiumArgs } from "../browser/chromium-args";
import { DEFAULT_CHROMIUM_PATH } from "../browser/launch";

export interface TestBrowserServer {
  /** What a worker's `BROWSER_WS_ENDPOINT` is set to. */
  wsEndpoint: string;
  close(): Promise<void>;
}

/**
 * A Chromium browser server on loopback, as a deployment's shared browser pool (`playwright run-server`) offers
 * one: workers connect to it over a websocket instead of launching their own browser.
 */
export async function startBrowserServer(
  chromiumPath = process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM_PATH,
): Promise<TestBrowserServer> {
  const server = await chromium.launchServer({
    executablePath: chromiumPath,
    args: chromiumArgs(),
  });
  return { wsEndpoint: server.wsEndpoint(), close: () => server.close() };
}
