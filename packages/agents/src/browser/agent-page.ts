import type { Browser, BrowserContext, CDPSession, Request, Route } from "playwright-core";
import { publicUrlsOnly } from "../network/url-policy";
import { timedPhase } from "../observability/phases";
import {
  type ActionOutcome,
  type AgentAction,
  type AgentPage,
  type OpenPageOptions,
  type PageCapture,
  PageError,
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

/** One context per run: the persona's device, an address guard on every request, and a kill switch. */
export async function openAgentPage(browser: Browser, options: OpenPageOptions): Promise<AgentPage> {
  const signal = options.signal;
  if (signal?.aborted) throw new PageError("aborted", "The run was cancelled before the page opened.");
  const timeoutMs = options.pageTimeoutMs ?? DEFAULT_PAGE_TIMEOUT_MS;
  const isAllowed = options.isAllowedUrl ?? publicUrlsOnly();

  const context: BrowserContext = await browser.newContext({
    ...contextOptionsFor(options.device),
    serviceWorkers: "block", // a service worker's requests would bypass the guard below
    acceptDownloads: false,
  });
  // Functions handed to `page.evaluate` are serialised from our source; when that source was compiled with kept
  // names (tsx, which `pnpm worker` runs on) they call esbuild's `__name` helper, which pages do not have.
  await context.addInitScript("globalThis.__name ??= (fn) => fn;");
  const closedError = () => new PageError("aborted", "The page is closed: the run ended or was cancelled.");
  // Whatever is in progress fails the moment the page closes, not when the browser has finished tearing down.
  let rejectInFlight!: (err: PageError) => void;
  const whenClosed = new Promise<never>((_, reject) => {
    rejectInFlight = reject;
  });
  whenClosed.catch(() => undefined);
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    if (!closing) {
      rejectInFlight(closedError());
      closing = context.close().catch(() => undefined);
    }
    return closing;
  };
  const untilClosed = <T>(work: Promise<T>): Promise<T> => Promise.race([work, whenClosed]);
  const onAbort = () => void close();
  signal?.addEventListener("abort", onAbort, { once: true });

  /**
   * Main-frame navigation targets refused since the last visit or action began, newest last. A refused
   * sub-resource (an image on a private address) only fails that resource, as a blocked request would.
   */
  let blocked: string[] = [];
  const refuse = (route: Route, url: string, mainFrameNavigation: boolean) => {
    if (mainFrameNavigation) blocked.push(url);
    return route.abort("blockedbyclient");
  };
  const isMainFrameNavigation = (request: Request) => {
    try {
      return request.isNavigationRequest() && request.frame().parentFrame() === null;
    } catch {
      return false;
    }
  };

  const conditions = networkConditionsFor(options.device.network);
  try {
    context.setDefaultNavigationTimeout(timeoutMs);
    context.setDefaultTimeout(timeoutMs);
    await context.route("**/*", async (route, request) => {
      const url = request.url();
      const main = isMainFrameNavigation(request);
      if (!(await isAllowed(url))) return refuse(route, url, main);
      // A route sees only a request's first URL; the redirects after it are checked hop by hop below (`guardRedirects`).
      // A document's first hop is fetched here so the refused Location can be reported as the visit's error.
      if (!request.isNavigationRequest()) return route.continue();
      let response: Awaited<ReturnType<Route["fetch"]>>;
      try {
        response = await route.fetch({ maxRedirects: 0, timeout: timeoutMs });
      } catch {
        return route.abort("failed").catch(() => undefined);
      }
      const location =
        response.status() >= 300 && response.status() < 400 ? response.headers().location : undefined;
      if (location !== undefined) {
        const target = new URL(location, url).toString();
        if (!(await isAllowed(target))) return refuse(route, target, main);
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
        if (await isAllowed(target)) socket.connectToServer();
        else
          await socket.close({ code: 1008, reason: "blocked by the address guard" }).catch(() => undefined);
      },
    );

    const page = await context.newPage();
    await guardRedirects(await context.newCDPSession(page), isAllowed, (url) => blocked.push(url));
    if (conditions) {
      const cdp = await context.newCDPSession(page);
      await cdp.send("Network.enable");
      await cdp.send("Network.emulateNetworkConditions", conditions);
    }

    // Windows a script opens (window.open) would escape the persona's one tab and its captures: closed at once.
    page.on("popup", (popup) => void popup.close().catch(() => undefined));

    let consoleErrors = 0;
    page.on("console", (msg) => {
      // A request the guard refused is the guard's doing, not an error of the page's own.
      if (msg.type() === "error" && !msg.text().includes("ERR_BLOCKED_BY_CLIENT")) consoleErrors++;
    });
    page.on("pageerror", () => consoleErrors++);
    page.on("framenavigated", (frame) => {
      if (frame === page.mainFrame()) consoleErrors = 0;
    });

    let lastRequestedUrl = "about:blank";

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
      const refused = blocked.at(-1);
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
        return await capturePage(page, { requestedUrl: lastRequestedUrl, consoleErrors });
      } catch (err) {
        throw translate(err, page.url());
      }
    };

    const visit = async (url: string): Promise<PageCapture> => {
      ensureOpen();
      blocked = [];
      lastRequestedUrl = url;
      if (!(await isAllowed(url))) {
        throw new PageError(
          "blocked_url",
          `Refused to open ${url}: it is not an allowed address (private, loopback and link-local targets are blocked).`,
        );
      }
      try {
        await timedPhase("navigate", async () => {
          const response = await page.goto(url, { waitUntil: "load", timeout: timeoutMs });
          if (blocked.length > 0) throw translate(new Error("blocked"), url);
          if (response === null && page.url() === "about:blank") {
            throw new PageError("navigation_failed", `Could not load ${url}.`);
          }
          await settle();
        });
      } catch (err) {
        throw translate(err, url);
      }
      return capture();
    };

    const act = async (action: AgentAction): Promise<ActionOutcome> => {
      ensureOpen();
      blocked = [];
      try {
        return await performAction(
          {
            page,
            afterInteraction: async () => {
              await page
                .waitForLoadState("load", { timeout: ACTION_NAVIGATION_WAIT_MS })
                .catch(() => undefined);
              const blockedUrl = blocked.at(-1) ?? null;
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
        await close();
      },
    };
  } catch (err) {
    signal?.removeEventListener("abort", onAbort);
    await close();
    throw err;
  }
}
