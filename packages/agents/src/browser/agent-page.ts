import type { Browser, BrowserContext, CDPSession, Page, Request, Route } from "playwright-core";
import { publicUrlsOnly } from "../network/url-policy";
import { timedPhase } from "../observability/phases";
import {
  type ActionOutcome,
  type AgentAction,
  type AgentPage,
  type OpenPageOptions,
  type PageCapture,
  PageError,
  type PersonaDevice,
} from "../types";
import { performAction } from "./actions";
import { capturePage, within } from "./capture";
import { contextOptionsFor, networkConditionsFor } from "./devices";

export const DEFAULT_PAGE_TIMEOUT_MS = 30_000;

/** How long an action waits for the navigation it started to finish loading. */
const ACTION_NAVIGATION_WAIT_MS = 10_000;

/** How long a page may take to paint after load before it is captured as it is. */
const SETTLE_WAIT_MS = 2_000;

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

interface PausedResponse {
  requestId: string;
  frameId: string;
  resourceType: string;
  request: { url: string };
  responseStatusCode?: number;
  responseHeaders?: { name: string; value: string }[];
}

/**
 * Every redirect the page's requests meet (documents, images, scripts, fetches), checked before the browser follows
 * it: redirects are followed inside the browser's network stack, where no Playwright route sees them, so the
 * DevTools Fetch domain pauses each response and a Location that fails the guard fails the request instead of
 * being connected to. `onBlockedNavigation` hears of refused main-frame documents, which the visit reports.
 */
async function guardRedirects(
  session: CDPSession,
  isAllowed: (url: string) => Promise<boolean>,
  onBlockedNavigation: (url: string) => void,
): Promise<void> {
  // `isAllowed` and `onBlockedNavigation` answer for whichever run holds the tab when a response arrives.
  const { frameTree } = (await session.send("Page.getFrameTree")) as { frameTree: { frame: { id: string } } };
  const mainFrameId = frameTree.frame.id;
  const check = async (paused: PausedResponse) => {
    const status = paused.responseStatusCode ?? 0;
    const location =
      status >= 300 && status < 400
        ? paused.responseHeaders?.find((h) => h.name.toLowerCase() === "location")?.value
        : undefined;
    let target: string | null = null;
    if (location !== undefined) {
      try {
        target = new URL(location, paused.request.url).toString();
      } catch {
        target = null;
      }
    }
    if (location !== undefined && (target === null || !(await isAllowed(target)))) {
      if (paused.resourceType === "Document" && paused.frameId === mainFrameId)
        onBlockedNavigation(target ?? location);
      await session.send("Fetch.failRequest", {
        requestId: paused.requestId,
        errorReason: "BlockedByClient",
      });
      return;
    }
    await session.send("Fetch.continueRequest", { requestId: paused.requestId });
  };
  session.on("Fetch.requestPaused", (paused) => {
    // A request the page abandoned or a closed page has nothing left to continue.
    check(paused as PausedResponse).catch(() => undefined);
  });
  await session.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Response" }] });
}

/** What one run holds while it has the tab: its guard, its timeout and what it saw. */
interface RunBinding {
  isAllowed: (url: string) => Promise<boolean>;
  timeoutMs: number;
  /** Main-frame navigation targets refused since the last visit or action began, newest last. */
  blocked: string[];
  consoleErrors: number;
}

/**
 * A context with its one page, guarded for whichever run is bound to it. Between runs (`run` null) every request
 * is refused. `origins` lists what the bound runs reached, so their storage can be cleared before the tab serves
 * another run.
 */
export interface AgentTab {
  readonly key: string;
  readonly context: BrowserContext;
  readonly page: Page;
  readonly cdp: CDPSession;
  run: RunBinding | null;
  runs: number;
  readonly origins: Set<string>;
}

const REFUSED: (url: string) => Promise<boolean> = async () => false;

/** Opens a context and its page for `device`, with the address guard on every request and redirect. */
export async function openAgentTab(browser: Browser, device: PersonaDevice, key: string): Promise<AgentTab> {
  const context: BrowserContext = await browser.newContext({
    ...contextOptionsFor(device),
    serviceWorkers: "block", // a service worker's requests would bypass the guard below
    acceptDownloads: false,
  });
  try {
    // Functions handed to `page.evaluate` are serialised from our source; when that source was compiled with kept
    // names (tsx, which `pnpm worker` runs on) they call esbuild's `__name` helper, which pages do not have.
    await context.addInitScript("globalThis.__name ??= (fn) => fn;");
    const conditions = networkConditionsFor(device.network);
    const tab: { -readonly [K in keyof AgentTab]: AgentTab[K] } = {
      key,
      context,
      page: null as unknown as Page,
      cdp: null as unknown as CDPSession,
      run: null,
      runs: 0,
      origins: new Set(),
    };
    const isAllowed = (url: string) => (tab.run?.isAllowed ?? REFUSED)(url);
    const refuse = (route: Route, url: string, mainFrameNavigation: boolean) => {
      if (mainFrameNavigation) tab.run?.blocked.push(url);
      return route.abort("blockedbyclient");
    };
    const isMainFrameNavigation = (request: Request) => {
      try {
        return request.isNavigationRequest() && request.frame().parentFrame() === null;
      } catch {
        return false;
      }
    };
    const note = (url: string) => {
      try {
        const { origin } = new URL(url);
        if (origin !== "null") tab.origins.add(origin);
      } catch {
        // Not an address with an origin.
      }
    };

    await context.route("**/*", async (route, request) => {
      const url = request.url();
      const main = isMainFrameNavigation(request);
      if (!(await isAllowed(url))) return refuse(route, url, main);
      note(url);
      // A route sees only a request's first URL; the redirects after it are checked hop by hop below (`guardRedirects`).
      // A document's first hop is fetched here so the refused Location can be reported as the visit's error.
      if (!request.isNavigationRequest()) return route.continue();
      let response: Awaited<ReturnType<Route["fetch"]>>;
      try {
        response = await route.fetch({
          // The fetch runs in Node, on a keep-alive pool that belongs to the context and so outlives the run in a
          // kept one: the next run's first document would go out on a connection left idle since the last run,
          // which a site closes after its own idle timeout (5 s in Node's server). A request written as the close
          // arrives fails with ECONNRESET, which Node, unlike a browser, does not retry: the run failed on
          // `net::ERR_FAILED`. Each document therefore gets a connection of its own, as in a new context.
          headers: { ...request.headers(), connection: "close" },
          maxRedirects: 0,
          timeout: tab.run?.timeoutMs ?? DEFAULT_PAGE_TIMEOUT_MS,
        });
      } catch {
        return route.abort("failed").catch(() => undefined);
      }
      const location =
        response.status() >= 300 && response.status() < 400 ? response.headers().location : undefined;
      if (location !== undefined) {
        const target = new URL(location, url).toString();
        if (!(await isAllowed(target))) return refuse(route, target, main);
        note(target);
      }
      if (conditions) {
        // A document fetched here skips the browser's throttling; hold it back by what the network would cost.
        const bytes = (await response.body().catch(() => Buffer.alloc(0))).length;
        await new Promise((r) =>
          setTimeout(r, conditions.latency + (bytes / conditions.downloadThroughput) * 1000),
        );
      }
      return route.fulfill({ response });
    });

    // WebSockets never pass through `route`: each one is held until its address passed the same guard, then
    // connected (or closed with 1008, policy violation, before anything reaches the server).
    await context.routeWebSocket(
      () => true,
      async (socket) => {
        const target = socket.url().replace(/^ws(s?):/i, "http$1:");
        if (await isAllowed(target)) {
          note(target);
          socket.connectToServer();
        } else
          await socket.close({ code: 1008, reason: "blocked by the address guard" }).catch(() => undefined);
      },
    );

    const page = await context.newPage();
    tab.page = page;
    tab.cdp = await context.newCDPSession(page);
    await guardRedirects(tab.cdp, isAllowed, (url) => tab.run?.blocked.push(url));
    if (conditions) {
      const cdp = await context.newCDPSession(page);
      await cdp.send("Network.enable");
      await cdp.send("Network.emulateNetworkConditions", conditions);
    }

    // Windows a script opens (window.open) would escape the persona's one tab and its captures: closed at once.
    page.on("popup", (popup) => void popup.close().catch(() => undefined));

    page.on("console", (msg) => {
      // A request the guard refused is the guard's doing, not an error of the page's own.
      if (tab.run && msg.type() === "error" && !msg.text().includes("ERR_BLOCKED_BY_CLIENT"))
        tab.run.consoleErrors++;
    });
    page.on("pageerror", () => {
      if (tab.run) tab.run.consoleErrors++;
    });
    page.on("framenavigated", (frame) => {
      if (tab.run && frame === page.mainFrame()) tab.run.consoleErrors = 0;
    });
    return tab;
  } catch (err) {
    await context.close().catch(() => undefined);
    throw err;
  }
}

/** How long clearing a tab for its next run may take before the tab is closed instead. */
const RESET_WAIT_MS = 5_000;

/**
 * Makes a tab a first-time visitor again: the page back on a blank document with no history behind it, and the
 * cookies, storage (local, session, IndexedDB, caches) of every origin its runs reached, the HTTP cache and
 * granted permissions cleared. False when any step failed; such a tab must be closed, not reused.
 */
export async function resetAgentTab(tab: AgentTab): Promise<boolean> {
  tab.run = null;
  const work = async () => {
    const { page, cdp, context } = tab;
    if (page.isClosed() || context.pages().length !== 1) return false;
    await page.goto("about:blank", { timeout: RESET_WAIT_MS });
    // `window.name` belongs to the tab, not the document, and would survive into the next run's first page.
    await page.evaluate("window.name = ''");
    await cdp.send("Page.resetNavigationHistory");
    for (const origin of tab.origins) {
      await cdp.send("Storage.clearDataForOrigin", { origin, storageTypes: "all" });
    }
    tab.origins.clear();
    await cdp.send("Network.clearBrowserCache");
    await context.clearCookies();
    await context.clearPermissions();
    return page.url() === "about:blank";
  };
  return within(
    work().catch(() => false),
    RESET_WAIT_MS,
    false,
  );
}

/**
 * A page for one run. `tab` is a context another run of the same key left cleared (`resetAgentTab`); without one a
 * new context opens. `release` hears the tab when the run closes the page normally (not on abort), and decides
 * whether it is kept for a later run or closed.
 */
export async function openAgentPage(
  browser: Browser,
  options: OpenPageOptions,
  reuse: { tab?: AgentTab; key?: string; release?: (tab: AgentTab) => Promise<void> } = {},
): Promise<AgentPage> {
  const signal = options.signal;
  if (signal?.aborted) {
    // A kept tab handed to a run that was already cancelled goes back to no one: closed, not left open.
    if (reuse.tab) await reuse.tab.context.close().catch(() => undefined);
    throw new PageError("aborted", "The run was cancelled before the page opened.");
  }
  const timeoutMs = options.pageTimeoutMs ?? DEFAULT_PAGE_TIMEOUT_MS;
  const isAllowed = options.isAllowedUrl ?? publicUrlsOnly();

  const tab = reuse.tab ?? (await openAgentTab(browser, options.device, reuse.key ?? ""));
  const reused = tab.runs > 0;
  tab.runs++;
  const binding: RunBinding = { isAllowed, timeoutMs, blocked: [], consoleErrors: 0 };
  tab.run = binding;
  const { context, page, cdp } = tab;
  const closedError = () => new PageError("aborted", "The page is closed: the run ended or was cancelled.");
  // Whatever is in progress fails the moment the page closes, not when the browser has finished tearing down.
  let rejectInFlight!: (err: PageError) => void;
  const whenClosed = new Promise<never>((_, reject) => {
    rejectInFlight = reject;
  });
  whenClosed.catch(() => undefined);
  let closing: Promise<void> | null = null;
  const close = (keep: boolean): Promise<void> => {
    if (!closing) {
      rejectInFlight(closedError());
      if (tab.run === binding) tab.run = null;
      closing =
        keep && reuse.release && !signal?.aborted
          ? reuse.release(tab)
          : context.close().catch(() => undefined);
    }
    return closing;
  };
  const untilClosed = <T>(work: Promise<T>): Promise<T> => Promise.race([work, whenClosed]);
  const onAbort = () => void close(false);
  signal?.addEventListener("abort", onAbort, { once: true });
  // A reused tab's blank page is an entry of its history; the run's first page replaces it, as in a new tab.
  let historyToDrop = reused;

  try {
    context.setDefaultNavigationTimeout(timeoutMs);
    context.setDefaultTimeout(timeoutMs);

    let lastRequestedUrl = "about:blank";

    const blocked = () => binding.blocked;
    const ensureOpen = () => {
      if (closing || signal?.aborted) throw closedError();
    };

    /**
     * Fonts and two frames after load, so layout-based figures see the settled page. Bounded from here, not in
     * the page: a sandboxed document (an image served with `Content-Security-Policy: sandbox`) runs neither
     * animation frames nor timers.
     */
    const settle = () =>
      within(
        page.evaluate(async () => {
          await document.fonts.ready;
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        }),
        SETTLE_WAIT_MS,
        undefined,
      );

    const translate = (err: unknown, url: string): PageError => {
      if (err instanceof PageError) return err;
      if (closing || signal?.aborted) return closedError();
      const refused = blocked().at(-1);
      if (refused) {
        return new PageError(
          "blocked_url",
          `Refused to load ${refused}: it is not an allowed address (private, loopback and link-local targets are blocked).`,
        );
      }
      const message = (err as Error).message ?? String(err);
      if ((err as Error).name === "TimeoutError" || /Timeout \d+ms exceeded/.test(message)) {
        return new PageError("timeout", `${url} did not finish loading within ${seconds(timeoutMs)}.`);
      }
      return new PageError("navigation_failed", `Could not load ${url}: ${message.split("\n")[0]}`);
    };

    const capture = async (): Promise<PageCapture> => {
      ensureOpen();
      try {
        return await capturePage(page, {
          requestedUrl: lastRequestedUrl,
          consoleErrors: binding.consoleErrors,
          cdp,
        });
      } catch (err) {
        throw translate(err, page.url());
      }
    };

    const visit = async (url: string): Promise<PageCapture> => {
      ensureOpen();
      binding.blocked = [];
      lastRequestedUrl = url;
      if (!(await isAllowed(url))) {
        throw new PageError(
          "blocked_url",
          `Refused to open ${url}: it is not an allowed address (private, loopback and link-local targets are blocked).`,
        );
      }
      // A page that answers but has not finished loading within the budget is rated on what loaded, with the
      // budget as its load time: a slow page is what a persona on a slow network exists to notice, not a failure.
      // Only a page that never answered (nothing committed) fails.
      let unfinished = false;
      try {
        await timedPhase("navigate", async () => {
          const started = Date.now();
          const response = await page.goto(url, { waitUntil: "commit", timeout: timeoutMs });
          if (blocked().length > 0) throw translate(new Error("blocked"), url);
          if (response === null && page.url() === "about:blank") {
            throw new PageError("navigation_failed", `Could not load ${url}.`);
          }
          const left = Math.max(1, timeoutMs - (Date.now() - started));
          await page.waitForLoadState("load", { timeout: left }).catch((err: unknown) => {
            if (translate(err, url).code !== "timeout") throw err;
            unfinished = true;
          });
          if (blocked().length > 0) throw translate(new Error("blocked"), url);
          if (historyToDrop) {
            historyToDrop = false;
            await cdp.send("Page.resetNavigationHistory");
          }
          await settle();
        });
      } catch (err) {
        throw translate(err, url);
      }
      const shot = await capture();
      if (!unfinished) return shot;
      const { timings } = shot.signals;
      return {
        ...shot,
        signals: { ...shot.signals, timings: { ...timings, load: null, unfinishedAfter: timeoutMs } },
      };
    };

    const act = async (action: AgentAction): Promise<ActionOutcome> => {
      ensureOpen();
      binding.blocked = [];
      try {
        return await performAction(
          {
            page,
            afterInteraction: async () => {
              await page
                .waitForLoadState("load", { timeout: ACTION_NAVIGATION_WAIT_MS })
                .catch(() => undefined);
              const blockedUrl = blocked().at(-1) ?? null;
              // A refused navigation leaves Chromium's error page; the person is back where they clicked.
              if (blockedUrl && page.url().startsWith("chrome-error:")) {
                await page
                  .goBack({ waitUntil: "load", timeout: ACTION_NAVIGATION_WAIT_MS })
                  .catch(() => undefined);
              }
              await settle().catch(() => undefined);
              return { blockedUrl };
            },
          },
          action,
        );
      } catch (err) {
        throw translate(err, page.url());
      }
    };

    return {
      visit: (url) => untilClosed(visit(url)),
      act: (action) => untilClosed(act(action)),
      capture: () => untilClosed(capture()),
      async close() {
        signal?.removeEventListener("abort", onAbort);
        await close(true);
      },
    };
  } catch (err) {
    signal?.removeEventListener("abort", onAbort);
    await close(false);
    throw err;
  }
}
