import AxeBuilder from "@axe-core/playwright";
import axeCore from "axe-core";
import type { CDPSession, Page } from "playwright-core";
import { timedPhase } from "../observability/phases";
import type {
  AxeImpact,
  PageCapture,
  PageSignals,
  RenderingSignals,
  TextSample,
  VisualSignals,
} from "../types";
import { largestContentfulPaint, measureDom } from "./measure";
import { isOnePicture, type NaturalPicture, PICTURE_LIMIT, readPicture } from "./picture";
import { countWords, fleschReadingEase } from "./readability";
import { measureRendering } from "./render-measure";
import { measureScreenshot } from "./visual-pool";

/** Bounds on what a capture carries, so a huge page cannot blow up a run's storage or a model's prompt. */
export const VISIBLE_TEXT_LIMIT = 20_000;
export const ACCESSIBILITY_TREE_LIMIT = 30_000;

const IMPACTS: readonly AxeImpact[] = ["minor", "moderate", "serious", "critical"];

/** How long a timer set in the page may take to fire before the page counts as one that runs none. */
const TIMER_PROBE_MS = 3_000;
/** How long the largest-contentful-paint figure is waited for (the page itself gives up after 200 ms). */
const LCP_WAIT_MS = 2_000;
/** How long the accessibility checks may run on one page. */
const AXE_TIMEOUT_MS = 15_000;
/** How long reading a picture's own pixels may take. */
const PICTURE_TIMEOUT_MS = 5_000;

/** `work`'s answer, or `fallback` once `ms` have passed (the work itself is left to end with its page). */
export function within<T>(work: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}\n…`;
}

/** What `AxeBuilder`'s single-document path configures before its run (same origin only, its branding). */
const AXE_CONFIGURE = `;axe.configure({ allowedOrigins: ["<same_origin>"], branding: { application: "playwright" } })`;

/** The options of the capture's `axe.run`: every rule, but only the violations are collected, without selectors. */
const AXE_RUN_OPTIONS: axeCore.RunOptions = { resultTypes: ["violations"], selectors: false };

type Violation = PageSignals["axeViolations"][number];

function keptOf(v: { id: string; impact?: string | null; nodes: number; help: string }): Violation {
  return {
    id: v.id,
    impact: (IMPACTS.includes(v.impact as AxeImpact) ? v.impact : "minor") as AxeImpact,
    nodes: v.nodes,
    help: v.help,
  };
}

/**
 * `axe.run` on the page's own document, axe's source evaluated once. `AxeBuilder`'s single-document path
 * evaluates the 650 kB source twice (once to probe the version, once per frame), and evaluating it is most of a
 * check's cost on a small page. Given the page's DevTools session, the source goes to the page by a plain
 * `Runtime.evaluate`: through `page.evaluate` the same source cost Chromium ~570 ms of CPU against ~260 ms.
 * Every rule runs; only the violations are collected, without selectors, and reduced to what a capture keeps in
 * the page, so passes and node details are never built or sent back (the findings are the same: a test compares).
 */
async function axeInPage(page: Page, cdp?: CDPSession): Promise<Violation[]> {
  if (cdp) {
    const injected = await cdp.send("Runtime.evaluate", { expression: axeCore.source });
    if (injected.exceptionDetails) throw new Error(`axe did not load: ${injected.exceptionDetails.text}`);
  } else await page.evaluate(axeCore.source);
  await page.evaluate(AXE_CONFIGURE);
  const outcome = await page.evaluate(
    (options) =>
      (window as unknown as { axe: typeof axeCore }).axe.run(document, options).then(
        (results) => ({
          error: null,
          violations: results.violations.map((v) => ({
            id: v.id,
            impact: v.impact ?? null,
            nodes: v.nodes.length,
            help: v.help,
          })),
        }),
        (err: Error) => ({ error: err.message, violations: null }),
      ),
    AXE_RUN_OPTIONS,
  );
  if (!outcome.violations) throw new Error(outcome.error ?? "axe did not answer");
  return outcome.violations.map(keptOf);
}

/**
 * The page's accessibility violations, by rule. `cdp`, the page's DevTools session when the caller holds one,
 * makes loading axe cheaper.
 */
export async function axeViolations(page: Page, cdp?: CDPSession): Promise<PageSignals["axeViolations"]> {
  // A page without frames is checked by `axe.run` in the page itself: the same rules on the same document. The
  // default path runs each frame's part and merges the parts in a blank tab it opens in the context, which costs
  // a second renderer process per run (the browser's peak memory) and a second injection of axe's source.
  const found =
    page.frames().length === 1
      ? await axeInPage(page, cdp)
      : (await new AxeBuilder({ page }).analyze()).violations.map((v) =>
          keptOf({ ...v, nodes: v.nodes.length }),
        );
  return found.sort((a, b) => a.id.localeCompare(b.id));
}

/** Captures the page as it is now; `consoleErrors` is counted by the caller since the last navigation. */
export async function capturePage(
  page: Page,
  opts: { requestedUrl: string; consoleErrors: number; cdp?: CDPSession },
): Promise<PageCapture> {
  const dom = await timedPhase("capture.dom", () =>
    page.evaluate(measureDom, { textChars: VISIBLE_TEXT_LIMIT }),
  );
  const measured = await timedPhase("capture.rendering", () =>
    page.evaluate(measureRendering).catch(() => null),
  );
  let rendering: RenderingSignals | null = null;
  let unresolvedText: TextSample[] | undefined;
  if (measured) ({ unresolvedText, ...rendering } = measured);
  // A sandboxed document (an image served with `Content-Security-Policy: sandbox`) never fires a timer, and the
  // paint figure and axe both wait on timers: such a page is measured without them.
  const timersRun = await within(
    page.evaluate(() => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 0))),
    TIMER_PROBE_MS,
    false,
  );
  const paint = timersRun
    ? await timedPhase("capture.paint", () =>
        within(page.evaluate(largestContentfulPaint), LCP_WAIT_MS, null),
      )
    : null;
  const violations = timersRun
    ? await timedPhase("capture.axe", () => within(axeViolations(page, opts.cdp), AXE_TIMEOUT_MS, null))
    : null;
  const tree = await timedPhase("capture.aria", () =>
    page
      .locator("body")
      .ariaSnapshot({ timeout: 10_000 })
      .catch(() => ""),
  );
  const screenshot = await timedPhase("capture.screenshot", () =>
    page.screenshot({ type: "png", timeout: 10_000 }).catch(() => null),
  );
  const viewport = page.viewportSize() ?? { width: 0, height: 0 };
  const wordCount = countWords(dom.visibleText);
  // A page that is one picture (v15): the picture is the design, so its look is measured on the picture's own
  // pixels at their natural size, not on the screenshot, where a phone shows a desktop design shrunk to its width.
  const picture = isOnePicture({ rendering, wordCount, interactiveElements: dom.interactiveElements })
    ? await timedPhase("capture.picture", () =>
        within(
          page.evaluate(readPicture, PICTURE_LIMIT).catch(() => null),
          PICTURE_TIMEOUT_MS,
          null as NaturalPicture | null,
        ),
      )
    : null;
  // Measured off this thread: the decode would otherwise hold up every other run's writes and stream events.
  const pictureMeasures = picture
    ? await timedPhase("capture.visual", () =>
        measureScreenshot(new Uint8Array(Buffer.from(picture.png, "base64")), picture.width),
      )
    : null;
  const measures =
    pictureMeasures ??
    (screenshot
      ? await timedPhase("capture.visual", () =>
          measureScreenshot(screenshot, viewport.width, unresolvedText),
        )
      : null);
  let visual: VisualSignals | null = null;
  if (measures) {
    const { textContrast, ...shot } = measures;
    visual =
      pictureMeasures && picture
        ? {
            ...shot,
            picture: {
              naturalWidth: picture.naturalWidth,
              naturalHeight: picture.naturalHeight,
              width: picture.width,
              height: picture.height,
            },
          }
        : shot;
    if (rendering && textContrast && textContrast.chars > 0) {
      const { chars, below45, below3, below2 } = textContrast;
      const share = (n: number) => Math.round((n / chars) * 1000) / 1000;
      rendering = {
        ...rendering,
        contrast: {
          ...rendering.contrast,
          screenshot: {
            measuredChars: Math.round(chars),
            below45Share: share(below45),
            below3Share: share(below3),
            below2Share: share(below2),
          },
        },
      };
    }
  }
  const signals: PageSignals = {
    axeViolations: violations ?? [],
    axeChecked: violations !== null,
    contrastFailures: violations?.find((v) => v.id === "color-contrast")?.nodes ?? 0,
    smallTextRatio: dom.smallTextRatio,
    smallTapTargets: dom.smallTapTargets,
    interactiveElements: dom.interactiveElements,
    readingEase: fleschReadingEase(dom.visibleText),
    wordCount,
    horizontalOverflow: dom.horizontalOverflow,
    timings: { ...dom.timings, largestContentfulPaint: paint },
    brokenImages: dom.brokenImages,
    consoleErrors: opts.consoleErrors,
    imagesWithoutAlt: dom.imagesWithoutAlt,
    unlabelledFields: dom.unlabelledFields,
    formFields: dom.formFields,
    headings: dom.headings,
    landmarks: dom.landmarks,
    rendering,
    visual,
  };
  return {
    requestedUrl: opts.requestedUrl,
    finalUrl: page.url(),
    title: dom.title,
    screenshot: screenshot ? new Uint8Array(screenshot) : null,
    visibleText: dom.visibleText,
    accessibilityTree: cut(tree, ACCESSIBILITY_TREE_LIMIT),
    signals,
    viewport,
    capturedAt: new Date().toISOString(),
  };
}
