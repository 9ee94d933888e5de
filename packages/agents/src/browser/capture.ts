import AxeBuilder from "@axe-core/playwright";
import type { Page } from "playwright-core";
import type { AxeImpact, PageCapture, PageSignals } from "../types";
import { measureDom } from "./measure";
import { countWords, fleschReadingEase } from "./readability";

/** Bounds on what a capture carries, so a huge page cannot blow up a run's storage or a model's prompt. */
export const VISIBLE_TEXT_LIMIT = 20_000;
export const ACCESSIBILITY_TREE_LIMIT = 30_000;

const IMPACTS: readonly AxeImpact[] = ["minor", "moderate", "serious", "critical"];

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}\n…`;
}

async function axeViolations(page: Page): Promise<PageSignals["axeViolations"]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .map((v) => ({
      id: v.id,
      impact: (IMPACTS.includes(v.impact as AxeImpact) ? v.impact : "minor") as AxeImpact,
      nodes: v.nodes.length,
      help: v.help,
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** Captures the page as it is now; `consoleErrors` is counted by the caller since the last navigation. */
export async function capturePage(
  page: Page,
  opts: { requestedUrl: string; consoleErrors: number },
): Promise<PageCapture> {
  const dom = await page.evaluate(measureDom, { textChars: VISIBLE_TEXT_LIMIT });
  const violations = await axeViolations(page);
  const tree = await page
    .locator("body")
    .ariaSnapshot({ timeout: 10_000 })
    .catch(() => "");
  const screenshot = await page.screenshot({ type: "png", timeout: 10_000 }).catch(() => null);
  const viewport = page.viewportSize() ?? { width: 0, height: 0 };
  const signals: PageSignals = {
    axeViolations: violations,
    contrastFailures: violations.find((v) => v.id === "color-contrast")?.nodes ?? 0,
    smallTextRatio: dom.smallTextRatio,
    smallTapTargets: dom.smallTapTargets,
    interactiveElements: dom.interactiveElements,
    readingEase: fleschReadingEase(dom.visibleText),
    wordCount: countWords(dom.visibleText),
    horizontalOverflow: dom.horizontalOverflow,
    timings: dom.timings,
    brokenImages: dom.brokenImages,
    consoleErrors: opts.consoleErrors,
    imagesWithoutAlt: dom.imagesWithoutAlt,
    unlabelledFields: dom.unlabelledFields,
    headings: dom.headings,
    landmarks: dom.landmarks,
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
