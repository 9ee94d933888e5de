import { type Browser, chromium } from "playwright-core";
import type { AgentBrowser, LaunchOptions, OpenPageOptions } from "../types";
import { type AgentTab, openAgentPage, resetAgentTab } from "./agent-page";
import { chromiumArgs } from "./chromium-args";

/** Cleared tabs kept for later runs at most, across keys; the oldest is closed first. */
const IDLE_TABS = 4;
/** Runs one tab serves before it is closed, so whatever a page leaves in its renderer does not pile up. */
const RUNS_PER_TAB = 50;
/** A cleared tab no run took within this long is closed, giving its memory back. */
const IDLE_TAB_MS = 30_000;

export const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium";

function start(options: LaunchOptions): Promise<Browser> {
  return options.wsEndpoint
    ? chromium.connect(options.wsEndpoint)
    : chromium.launch({
        executablePath: options.chromiumPath ?? DEFAULT_CHROMIUM_PATH,
        args: chromiumArgs(),
      });
}

/**
 * Starts (or connects to) the browser autousers share; each run then gets a context of its own with `open`, so
 * runs never see each other's cookies or storage. A run given a `partition` (the team) may get a context an earlier
 * run of the same partition and device left, cleared of everything that run stored (`resetAgentTab`): its renderer
 * process and the scripts it compiled (axe-core's above all) serve the next run instead of being started again.
 * Runs of different partitions never share a context. A browser that crashed or a remote one that dropped the
 * connection is started again on the next `open`, so one bad page does not stop a worker for good.
 */
export async function launchAgentBrowser(options: LaunchOptions = {}): Promise<AgentBrowser> {
  let current: Promise<Browser> = start(options);
  await current;
  let closed = false;
  // Tabs left by runs, by key (the run's partition and device), oldest first: each with its clearing (true once the
  // tab is a first-time visitor again) and the timer that closes it.
  const idle: { tab: AgentTab; browser: Browser; cleared: Promise<boolean>; timer: NodeJS.Timeout }[] = [];
  const discard = (tab: AgentTab) => tab.context.close().catch(() => undefined);
  // The run that closed its page does not wait for the clearing: it goes on to record its end while the tab is
  // cleared, and only the run that takes the tab next waits for it (refused requests in between).
  const release = async (browser: Browser, tab: AgentTab) => {
    if (closed || tab.runs >= RUNS_PER_TAB) return discard(tab);
    const cleared = resetAgentTab(tab);
    const timer = setTimeout(() => {
      const at = idle.findIndex((entry) => entry.tab === tab);
      if (at >= 0) void discard(idle.splice(at, 1)[0]!.tab);
    }, IDLE_TAB_MS);
    timer.unref();
    idle.push({ tab, browser, cleared, timer });
    void cleared.then((ok) => {
      const at = idle.findIndex((entry) => entry.tab === tab);
      // A tab whose clearing failed is never handed out; one a run already took is closed by that run's `take`.
      if (!ok && at >= 0) {
        clearTimeout(idle[at]!.timer);
        void discard(idle.splice(at, 1)[0]!.tab);
      }
    });
    while (idle.length > IDLE_TABS) {
      const oldest = idle.shift()!;
      clearTimeout(oldest.timer);
      void discard(oldest.tab);
    }
  };
  const take = async (browser: Browser, key: string): Promise<AgentTab | undefined> => {
    const at = idle.findIndex((entry) => entry.tab.key === key && entry.browser === browser);
    if (at < 0) return undefined;
    // Taken out before the wait, so no other run can take the same tab.
    const [entry] = idle.splice(at, 1);
    clearTimeout(entry!.timer);
    if (await entry!.cleared) return entry!.tab;
    await discard(entry!.tab);
    return undefined;
  };
  const live = async (): Promise<Browser> => {
    const browser = await current.catch(() => null);
    if (browser?.isConnected()) return browser;
    current = start(options);
    return current;
  };
  return {
    async open(openOptions: OpenPageOptions) {
      if (closed) throw new Error("The agent browser is closed.");
      const browser = await live();
      if (openOptions.partition === undefined) return openAgentPage(browser, openOptions);
      const key = JSON.stringify([openOptions.partition, openOptions.device]);
      return openAgentPage(browser, openOptions, {
        tab: await take(browser, key),
        key,
        release: (tab) => release(browser, tab),
      });
    },
    async trim() {
      for (const entry of idle.splice(0)) {
        clearTimeout(entry.timer);
        await discard(entry.tab);
      }
    },
    async close() {
      closed = true;
      for (const entry of idle.splice(0)) clearTimeout(entry.timer);
      const browser = await current.catch(() => null);
      await browser?.close().catch(() => undefined);
    },
  };
}
