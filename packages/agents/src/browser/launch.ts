import { type Browser, chromium } from "playwright-core";
import type { AgentBrowser, LaunchOptions, OpenPageOptions } from "../types";
import { openAgentPage } from "./agent-page";

export const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium";

function start(options: LaunchOptions): Promise<Browser> {
  return options.wsEndpoint
    ? chromium.connect(options.wsEndpoint)
    : chromium.launch({
        executablePath: options.chromiumPath ?? DEFAULT_CHROMIUM_PATH,
        args: ["--no-sandbox", "--disable-background-networking"],
      });
}

/**
 * Starts (or connects to) the browser autousers share; each run then opens its own context with `open`, so
 * runs never see each other's cookies or storage. A browser that crashed or a remote one that dropped the
 * connection is started again on the next `open`, so one bad page does not stop a worker for good.
 */
export async function launchAgentBrowser(options: LaunchOptions = {}): Promise<AgentBrowser> {
  let current: Promise<Browser> = start(options);
  await current;
  let closed = false;
  const live = async (): Promise<Browser> => {
    const browser = await current.catch(() => null);
    if (browser?.isConnected()) return browser;
    current = start(options);
    return current;
  };
  return {
    async open(openOptions: OpenPageOptions) {
      if (closed) throw new Error("The agent browser is closed.");
      return openAgentPage(await live(), openOptions);
    },
    async close() {
      closed = true;
      const browser = await current.catch(() => null);
      await browser?.close().catch(() => undefined);
    },
  };
}
