/**
 * The command line autouser browsers start with. Each switch beyond the sandbox is here for memory: a worker
 * holds one renderer per concurrent run, and every process Chromium starts besides costs as much again.
 */

/**
 * Playwright's own `--disable-features` list (playwright-core 1.65, `chromiumSwitches.ts`). Chromium honours
 * only the last `--disable-features` switch on its command line, and Playwright puts ours after its own, so ours
 * must carry Playwright's list too or those features come back on. A test compares this list with the one the
 * installed Playwright passes (browser-args.test.ts).
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsUpgrades",
  "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "TcpPortRandomizationWin",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "PreconnectToSearch",
  "msForceBrowserSignIn",
  "msEdgeUpdateLaunchServicesPreferredVersion",
];

/**
 * Processes a headless browser starts that no run uses:
 * - the address bar's pop-ups, which the browser window of every context preloads as WebUI pages, each in a
 *   renderer of its own (55 MB, a third of a run's renderer);
 * - the spare renderer Chromium keeps started for the next navigation to a new site. A kept context's next
 *   run goes to a site its renderer already holds, and a new context's first navigation starts one in
 *   milliseconds from the zygote.
 */
export const AUTOUSER_DISABLED_FEATURES = [
  "WebUIOmniboxPopup",
  "WebUIOmniboxAimPopup",
  "WebUIOmniboxFullPopup",
  "SpareRendererForSitePerProcess",
];

export function chromiumArgs(): string[] {
  return [
    "--no-sandbox",
    "--disable-background-networking",
    `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...AUTOUSER_DISABLED_FEATURES].join(",")}`,
    // V8 keeps its heaps small instead of growing them for speed: a run's renderer peaks while axe-core walks
    // the page, and most of that peak was heap V8 grew ahead of need (docs/decisions/performance.md).
    "--js-flags=--optimize-for-size",
  ];
}
