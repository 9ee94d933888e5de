/**
 * Runs inside the page (serialised by `page.evaluate`), so it may use only the DOM and what it defines itself.
 * Every figure depends on layout alone, never on time, so the same page at the same viewport measures the
 * same; the timings come from the Performance API and are the one exception.
 */
export interface DomMeasurements {
  title: string;
  visibleText: string;
  smallTextRatio: number;
  smallTapTargets: number;
  interactiveElements: number;
  horizontalOverflow: boolean;
  brokenImages: number;
  imagesWithoutAlt: number;
  unlabelledFields: number;
  formFields: number;
  headings: number;
  landmarks: number;
  timings: { domContentLoaded: number | null; load: number | null };
}

/**
 * When the largest contentful paint happened, in ms; null when nothing contentful painted. Kept apart from
 * `measureDom` because it waits on a timer, which a sandboxed document never fires: the caller bounds it.
 */
export async function largestContentfulPaint(): Promise<number | null> {
  return new Promise<number | null>((resolve) => {
    if (!PerformanceObserver.supportedEntryTypes?.includes("largest-contentful-paint")) return resolve(null);
    const observer = new PerformanceObserver((list) => {
      const entries = list.getEntries();
      observer.disconnect();
      const at = entries[entries.length - 1]?.startTime;
      resolve(at && at > 0 ? Math.round(at) : null);
    });
    observer.observe({ type: "largest-contentful-paint", buffered: true });
    // No entry arrives when nothing contentful painted; buffered entries come within a frame or two.
    setTimeout(() => {
      observer.disconnect();
      resolve(null);
    }, 200);
  });
}

export function measureDom(limits: { textChars: number }): DomMeasurements {
  const visible = (el: Element): boolean => {
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") return false;
    const rect = el.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0;
  };

  // Share of visible characters set below 12 CSS px.
  let totalChars = 0;
  let smallChars = 0;
  const walker = document.createTreeWalker(document.body ?? document.documentElement, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    const chars = (node.textContent ?? "").replace(/\s+/g, "").length;
    if (!parent || chars === 0 || ["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"].includes(parent.tagName))
      continue;
    if (!visible(parent)) continue;
    totalChars += chars;
    if (Number.parseFloat(getComputedStyle(parent).fontSize) < 12) smallChars += chars;
  }

  const INTERACTIVE =
    'a[href], button, input:not([type="hidden"]), select, textarea, summary, [role="button"], [role="link"], ' +
    '[role="checkbox"], [role="radio"], [role="tab"], [role="menuitem"], [role="switch"], [tabindex]:not([tabindex="-1"])';
  const interactive = [...document.querySelectorAll(INTERACTIVE)].filter(visible);
  // WCAG 2.5.8 exempts links inline in a sentence: their size is the text's.
  const inlineInText = (el: Element) =>
    el.tagName === "A" &&
    getComputedStyle(el).display === "inline" &&
    (el.parentElement?.textContent ?? "").trim().length > (el.textContent ?? "").trim().length;
  const smallTapTargets = interactive.filter((el) => {
    if (inlineInText(el)) return false;
    const rect = el.getBoundingClientRect();
    return rect.width < 24 || rect.height < 24;
  }).length;

  const images = [...document.images];
  const brokenImages = images.filter(
    (img) => img.getAttribute("src") && img.complete && img.naturalWidth === 0,
  ).length;
  const imagesWithoutAlt =
    images.filter(
      (img) =>
        !img.hasAttribute("alt") &&
        img.getAttribute("aria-hidden") !== "true" &&
        !img.getAttribute("aria-label") &&
        !img.getAttribute("aria-labelledby") &&
        img.getAttribute("role") !== "presentation",
    ).length +
    [...document.querySelectorAll('[role="img"]')].filter(
      (el) => !el.getAttribute("aria-label") && !el.getAttribute("aria-labelledby"),
    ).length;

  // A placeholder is not a label: it disappears as soon as someone types.
  const fields = [
    ...document.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(
      'input:not([type="hidden"]):not([type="submit"]):not([type="button"]):not([type="reset"]):not([type="image"]), select, textarea',
    ),
  ];
  const unlabelledFields = fields.filter(
    (f) =>
      (f.labels?.length ?? 0) === 0 &&
      !f.getAttribute("aria-label")?.trim() &&
      !f.getAttribute("aria-labelledby") &&
      !f.getAttribute("title")?.trim(),
  ).length;

  const headings = document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role="heading"]').length;
  const sectioning = "article, aside, main, nav, section";
  const landmarks = [
    ...document.querySelectorAll(
      'main, nav, aside, header, footer, [role="main"], [role="navigation"], [role="banner"], [role="contentinfo"], ' +
        '[role="complementary"], [role="search"], [role="region"], section[aria-label], section[aria-labelledby]',
    ),
  ].filter(
    (el) => !((el.tagName === "HEADER" || el.tagName === "FOOTER") && el.parentElement?.closest(sectioning)),
  ).length;

  const root = document.documentElement;
  const horizontalOverflow = root.scrollWidth > root.clientWidth + 1;

  const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
  const ms = (value: number | undefined) => (value && value > 0 ? Math.round(value) : null);
  // innerText, unlike textContent, leaves out what is hidden and breaks lines where the layout does.
  // biome-ignore lint/performance/useDomNodeTextContent: the visible text is the point
  const text = (document.body?.innerText ?? "")
    .replace(/[ \t]+/g, " ")
    .replace(/\n\s*\n+/g, "\n")
    .trim();
  return {
    title: document.title,
    visibleText: text.slice(0, limits.textChars),
    smallTextRatio: totalChars === 0 ? 0 : Math.round((smallChars / totalChars) * 1000) / 1000,
    smallTapTargets,
    interactiveElements: interactive.length,
    horizontalOverflow,
    brokenImages,
    imagesWithoutAlt,
    unlabelledFields,
    formFields: fields.length,
    headings,
    landmarks,
    timings: {
      domContentLoaded: ms(nav?.domContentLoadedEventEnd),
      load: ms(nav?.loadEventEnd),
    },
  };
}
