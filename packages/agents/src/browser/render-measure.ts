import type { RenderingMeasure, TextSample } from "../types";

/**
 * What the page looks like as rendered, measured in the page (serialised by `page.evaluate`, so it uses only
 * the DOM and what it defines inside). Every figure comes from layout and computed styles, never from time,
 * so the same page at the same viewport measures the same.
 */
export function measureRendering(): RenderingMeasure {
  const vw = document.documentElement.clientWidth || window.innerWidth;
  const vh = window.innerHeight;
  const round3 = (x: number) => Math.round(x * 1000) / 1000;
  const share = (part: number, whole: number) => (whole === 0 ? 0 : round3(part / whole));
  const styleCache = new Map<Element, CSSStyleDeclaration>();
  const styleOf = (el: Element) => {
    let s = styleCache.get(el);
    if (!s) {
      s = getComputedStyle(el);
      styleCache.set(el, s);
    }
    return s;
  };
  // Elements in a finite transition or animation now (a carousel's slides mid-slide, a menu fading in): two slides
  // crossing are not text drawn over text, nor a control covered for good. Endless animations (a spinner, a pulsing
  // badge) are left in, so a page animated as a whole is still measured.
  const moving = document
    .getAnimations()
    .filter(
      (a) => a.playState === "running" && Number.isFinite(Number(a.effect?.getComputedTiming().endTime)),
    )
    .map((a) => (a.effect as KeyframeEffect | null)?.target)
    .filter((t): t is Element => t instanceof Element);
  const inMotion = (el: Element) => moving.some((m) => m === el || m.contains(el));
  const shownCache = new Map<Element, boolean>();
  const shown = (el: Element): boolean => {
    const cached = shownCache.get(el);
    if (cached !== undefined) return cached;
    const s = styleOf(el);
    const own = s.display !== "none" && s.visibility !== "hidden" && s.opacity !== "0";
    const result = own && (el.parentElement ? shown(el.parentElement) : true);
    shownCache.set(el, result);
    return result;
  };
  // Where an ancestor clips content away (overflow hidden or clip), as CSS applies it (v11): a collapsed menu or
  // accordion keeps its items laid out inside a box of no height, so they have boxes yet nothing of them is drawn.
  // A scroll container clips nothing away for good (its content scrolls into view) unless its own box is gone; an
  // absolutely positioned box escapes the clips below its containing block, a fixed one all of them. The body and
  // the root hand their overflow to the viewport, which scrolls.
  type Region = { l: number; t: number; r: number; b: number };
  const OPEN: Region = { l: -Infinity, t: -Infinity, r: Infinity, b: Infinity };
  const EMPTY: Region = { l: 0, t: 0, r: 0, b: 0 };
  const meet = (a: Region, b: Region): Region => ({
    l: Math.max(a.l, b.l),
    t: Math.max(a.t, b.t),
    r: Math.min(a.r, b.r),
    b: Math.min(a.b, b.b),
  });
  const clips = (v: string) => v === "hidden" || v === "clip";
  const scrolls = (v: string) => v === "auto" || v === "scroll";
  const contentCache = new Map<Element, Region>();
  const boxRegion = (el: Element): Region => {
    const position = styleOf(el).position;
    if (position === "fixed") return OPEN;
    let a = el.parentElement;
    if (position === "absolute")
      while (a && styleOf(a).position === "static" && styleOf(a).transform === "none") a = a.parentElement;
    return a && a !== document.body && a !== document.documentElement ? contentRegion(a) : OPEN;
  };
  const contentRegion = (el: Element): Region => {
    const cached = contentCache.get(el);
    if (cached) return cached;
    const s = styleOf(el);
    const outer = boxRegion(el);
    let result = outer;
    const { overflowX: ox, overflowY: oy } = s;
    if (clips(ox) || clips(oy) || scrolls(ox) || scrolls(oy)) {
      const r = el.getBoundingClientRect();
      const seen = meet(outer, { l: r.left, t: r.top, r: r.right, b: r.bottom });
      if (seen.r - seen.l < 2 || seen.b - seen.t < 2) result = EMPTY;
      else
        result = {
          l: clips(ox) ? seen.l : scrolls(ox) ? -Infinity : outer.l,
          r: clips(ox) ? seen.r : scrolls(ox) ? Infinity : outer.r,
          t: clips(oy) ? seen.t : scrolls(oy) ? -Infinity : outer.t,
          b: clips(oy) ? seen.b : scrolls(oy) ? Infinity : outer.b,
        };
    }
    contentCache.set(el, result);
    return result;
  };
  /** Whether less than half of `rect` (or under 2 px of it either way) survives the clips of `region`. */
  const clippedAway = (region: Region, rect: DOMRect): boolean => {
    if (region === OPEN) return false;
    const seen = meet(region, { l: rect.left, t: rect.top, r: rect.right, b: rect.bottom });
    const w = seen.r - seen.l;
    const h = seen.b - seen.t;
    return w < 2 || h < 2 || w * h < 0.5 * rect.width * rect.height;
  };
  /** An element shown and not clipped away by its ancestors. */
  const drawn = (el: Element, rect = el.getBoundingClientRect()) =>
    shown(el) && !clippedAway(boxRegion(el), rect);

  const parseColor = (c: string): [number, number, number, number] | null => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const parts = m[1]!
      .split(/[\s,/]+/)
      .filter(Boolean)
      .map(Number);
    if (parts.length < 3 || parts.some((p) => Number.isNaN(p))) return null;
    return [parts[0]!, parts[1]!, parts[2]!, parts.length > 3 ? parts[3]! : 1];
  };
  const over = (top: [number, number, number, number], below: [number, number, number]) =>
    [0, 1, 2].map((i) => top[i]! * top[3] + below[i]! * (1 - top[3])) as [number, number, number];
  const luminance = ([r, g, b]: [number, number, number]) => {
    const lin = (v: number) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const contrast = (a: [number, number, number], b: [number, number, number]) => {
    const la = luminance(a);
    const lb = luminance(b);
    return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
  };

  // The canvas colour: the root's background, else the body's (CSS propagates it), else the UA's white.
  const body = document.body;
  const rootBg = parseColor(styleOf(document.documentElement).backgroundColor);
  const bodyBg = body ? parseColor(styleOf(body).backgroundColor) : null;
  const canvasLayer = rootBg && rootBg[3] > 0 ? rootBg : bodyBg && bodyBg[3] > 0 ? bodyBg : null;
  const canvas: [number, number, number] = canvasLayer ? over(canvasLayer, [255, 255, 255]) : [255, 255, 255];

  // The colour behind an element, from its own and its ancestors' background colours; null when an image or
  // gradient is painted behind it, whose colour under the text the DOM cannot tell.
  const bgCache = new Map<Element, [number, number, number] | null>();
  const backdrop = (el: Element): [number, number, number] | null => {
    const cached = bgCache.get(el);
    if (cached !== undefined) return cached;
    const s = styleOf(el);
    let result: [number, number, number] | null;
    if (s.backgroundImage !== "none" && el !== document.documentElement) result = null;
    else {
      const layer = parseColor(s.backgroundColor);
      const below = el.parentElement ? backdrop(el.parentElement) : canvas;
      result = below === null ? null : layer && layer[3] > 0 ? over(layer, below) : below;
      if (layer && layer[3] >= 1) result = over(layer, [0, 0, 0]);
    }
    bgCache.set(el, result);
    return result;
  };

  const MEDIA = new Set(["IMG", "VIDEO", "CANVAS", "IFRAME", "EMBED", "OBJECT", "PICTURE"]);
  // A ::before or ::after positioned over most of its element and painted (a hero's darkening layer): the hit
  // test never reports it, and its colour over what lies below is known only in pixels.
  const overlayCache = new Map<Element, boolean>();
  const overlaid = (el: Element): boolean => {
    let v = overlayCache.get(el);
    if (v === undefined) {
      v = false;
      const box = el.getBoundingClientRect();
      for (const pseudo of ["::before", "::after"]) {
        const p = getComputedStyle(el, pseudo);
        if (p.content === "none" || p.content === "normal" || p.display === "none") continue;
        if (p.position !== "absolute" && p.position !== "fixed") continue;
        const painted = p.backgroundImage !== "none" || (parseColor(p.backgroundColor)?.[3] ?? 0) > 0;
        const w = Number.parseFloat(p.width) || 0;
        const h = Number.parseFloat(p.height) || 0;
        if (painted && w >= 0.5 * box.width && h >= 0.5 * box.height) v = true;
      }
      overlayCache.set(el, v);
    }
    return v;
  };

  // Below the first screen there is no hit test (and no screenshot): text laid over a picture or a video (a
  // portfolio's caption, a banner further down) would be read against its ancestors' colours, white on the white
  // canvas. Text whose line box lies mostly inside a shown medium is left unmeasured (v12) unless a box with an
  // opaque background of its own, not holding that medium, lies between them (a card laid over a background film).
  const mediaBoxes = [...document.querySelectorAll("img, video, canvas, iframe, embed, object")]
    .filter((m) => shown(m))
    .map((m) => ({ m, r: m.getBoundingClientRect() }))
    .filter(({ r }) => r.width > 0 && r.height > 0);
  const opaqueCache = new Map<Element, Element | null>();
  const opaqueBox = (el: Element): Element | null => {
    let v = opaqueCache.get(el);
    if (v === undefined) {
      const layer = parseColor(styleOf(el).backgroundColor);
      v =
        el === document.body || el === document.documentElement
          ? null
          : layer && layer[3] >= 1
            ? el
            : el.parentElement
              ? opaqueBox(el.parentElement)
              : null;
      opaqueCache.set(el, v);
    }
    return v;
  };
  const overMedia = (el: Element, rect: DOMRect): boolean => {
    const area = rect.width * rect.height;
    if (area <= 0 || mediaBoxes.length === 0) return false;
    for (const { m, r } of mediaBoxes) {
      const w = Math.min(r.right, rect.right) - Math.max(r.left, rect.left);
      const h = Math.min(r.bottom, rect.bottom) - Math.max(r.top, rect.top);
      if (w <= 0 || h <= 0 || w * h < 0.5 * area) continue;
      const box = opaqueBox(el);
      if (box === null || box.contains(m)) return true;
    }
    return false;
  };

  // On the first screen, what is painted under the text is read from the hit-test stack, as axe does: it
  // finds an overlay or card positioned behind the text that is not its ancestor. Elements that ignore the
  // pointer are missing from the stack; then, and when the text's own element is covered, the ancestors are used.
  const backdropAt = (el: Element, rect: DOMRect): [number, number, number] | null => {
    const x = Math.min(vw - 1, Math.max(0, rect.left + rect.width / 2));
    const y = Math.min(vh - 1, Math.max(0, rect.top + rect.height / 2));
    const stack = document.elementsFromPoint(x, y);
    const at = stack.indexOf(el);
    if (at < 0) return overMedia(el, rect) ? null : backdrop(el);
    const layers: [number, number, number, number][] = [];
    for (const under of stack.slice(at)) {
      const s = styleOf(under);
      if (s.backgroundImage !== "none" && under !== document.documentElement) return null;
      // A picture, video or canvas painted behind the text, or an overlay drawn by a pseudo-element: their colour
      // under the text is the screenshot's to tell (v12), not the background colours'.
      if (under !== el && MEDIA.has(under.tagName)) return null;
      if (overlaid(under)) return null;
      const layer = parseColor(s.backgroundColor);
      if (layer && layer[3] > 0) {
        layers.push(layer);
        if (layer[3] >= 1) break;
      }
    }
    let color: [number, number, number] = canvas;
    for (let i = layers.length - 1; i >= 0; i--) color = over(layers[i]!, color);
    return color;
  };

  // --- Text: size, contrast and where it sits on the first screen ---
  const COLS = 64;
  const ROWS = 40;
  const cells = new Uint8Array(COLS * ROWS);
  const holes = new Uint8Array(COLS * ROWS);
  const mark = (r: { left: number; top: number; right: number; bottom: number }, grid = cells) => {
    const x0 = Math.max(0, Math.floor((r.left / vw) * COLS));
    const x1 = Math.min(COLS - 1, Math.floor(((r.right - 0.01) / vw) * COLS));
    const y0 = Math.max(0, Math.floor((r.top / vh) * ROWS));
    const y1 = Math.min(ROWS - 1, Math.floor(((r.bottom - 0.01) / vh) * ROWS));
    for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) grid[y * COLS + x] = 1;
  };
  const onFirstScreen = (r: DOMRect) => r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh;
  // The page's own content, apart from its navigation and sidebars (v11): an app whose view failed to render still
  // draws its menu, which covers a fifth of the screen and holds a hundred words, yet the page has nothing on it.
  const own = new Uint8Array(COLS * ROWS);
  const CHROME = 'nav, [role="navigation"], aside, [role="complementary"]';
  const chromeCache = new Map<Element, boolean>();
  const inChrome = (el: Element): boolean => {
    let v = chromeCache.get(el);
    if (v === undefined) {
      v = el.closest(CHROME) !== null;
      chromeCache.set(el, v);
    }
    return v;
  };
  // A box painted around navigation (a header band, a wrapper) is the navigation's backdrop, not content of its own.
  const markOwn = (
    el: Element,
    r: { left: number; top: number; right: number; bottom: number },
    painted = false,
  ) => {
    mark(r);
    if (inChrome(el) || (painted && el.childElementCount > 0 && el.querySelector(CHROME) !== null)) return;
    mark(r, own);
  };
  let ownWords = 0;

  let textChars = 0;
  let smallChars = 0;
  let tinyChars = 0;
  let contrastChars = 0;
  let below45 = 0;
  let below3 = 0;
  let below2 = 0;
  let defaultFontChars = 0;
  const unresolvedText: TextSample[] = [];
  const sizes: [number, number][] = [];
  const range = document.createRange();
  const firstScreenText: { rect: DOMRect; chars: number; el: Element }[] = [];
  let firstScreenTextChars = 0;
  if (body) {
    const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      const chars = (node.textContent ?? "").replace(/\s+/g, "").length;
      if (!parent || chars === 0) continue;
      if (["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "OPTION"].includes(parent.tagName)) continue;
      range.selectNodeContents(node);
      const rect = range.getBoundingClientRect();
      // Text clipped to a pixel (the usual "visually hidden" pattern) is for screen readers only.
      if (rect.width < 2 || rect.height < 2 || !shown(parent)) continue;
      if (clippedAway(contentRegion(parent), rect)) continue;
      const s = styleOf(parent);
      const size = Number.parseFloat(s.fontSize) || 16;
      textChars += chars;
      sizes.push([size, chars]);
      if (size < 12) smallChars += chars;
      if (size < 9) tinyChars += chars;
      const family = s.fontFamily.split(",")[0]!.trim().replace(/["']/g, "").toLowerCase();
      if (family === "times new roman" || family === "serif" || family === "times") defaultFontChars += chars;
      const fg = parseColor(s.color);
      const bg = onFirstScreen(rect)
        ? backdropAt(parent, rect)
        : overMedia(parent, rect)
          ? null
          : backdrop(parent);
      if (fg && bg) {
        const ratio = contrast(over(fg, bg), bg);
        contrastChars += chars;
        if (ratio < 4.5) below45 += chars;
        if (ratio < 3) below3 += chars;
        if (ratio < 2) below2 += chars;
      } else if (fg && onFirstScreen(rect) && !inMotion(parent) && unresolvedText.length < 240) {
        // Over a picture, a video or an overlay: the capture reads the background from the screenshot, line by
        // line, where the text is drawn now (text mid-fade would not show its colour yet). Text filled with a
        // transparent colour is painted by its background (gradient lettering), which no colour stands for.
        const fill = parseColor(s.getPropertyValue("-webkit-text-fill-color")) ?? fg;
        const lines = [...range.getClientRects()].filter((r) => r.width >= 2 && r.height >= 2);
        const lineChars = chars / Math.max(1, lines.length);
        for (const r of lines) {
          const x = Math.max(0, r.left);
          const y = Math.max(0, r.top);
          const w = Math.min(vw, r.right) - x;
          const h = Math.min(vh, r.bottom) - y;
          if (w < 2 || h < 2 || fill[3] < 0.1 || unresolvedText.length >= 240) continue;
          unresolvedText.push({ x, y, w, h, fg: fill, chars: lineChars });
        }
      }
      if (!inChrome(parent)) ownWords += (node.textContent ?? "").trim().split(/\s+/).length;
      if (onFirstScreen(rect)) {
        firstScreenTextChars += chars;
        for (const r of range.getClientRects()) if (r.width > 0) markOwn(parent, r);
        if (firstScreenText.length < 600) firstScreenText.push({ rect, chars, el: parent });
      }
    }
  }
  sizes.sort((a, b) => a[0] - b[0]);
  let medianSize: number | null = null;
  let seen = 0;
  for (const [size, chars] of sizes) {
    seen += chars;
    if (seen * 2 >= textChars) {
      medianSize = size;
      break;
    }
  }

  // Text drawn over other text: blocks stacked on each other. A node counts when another node's box covers a
  // quarter of its own (a node nested in the other's element, like a link in a sentence, does not count).
  let overlapChars = 0;
  let firstScreenChars = 0;
  const settled = moving.length === 0 ? firstScreenText : firstScreenText.filter((t) => !inMotion(t.el));
  for (const a of settled) {
    firstScreenChars += a.chars;
    const areaA = a.rect.width * a.rect.height;
    for (const b of settled) {
      if (a === b || a.el === b.el || a.el.contains(b.el) || b.el.contains(a.el)) continue;
      const w = Math.min(a.rect.right, b.rect.right) - Math.max(a.rect.left, b.rect.left);
      const h = Math.min(a.rect.bottom, b.rect.bottom) - Math.max(a.rect.top, b.rect.top);
      if (w > 0 && h > 0 && w * h > 0.25 * areaA) {
        overlapChars += a.chars;
        break;
      }
    }
  }

  // --- Images: loaded, failed, and the layout they leave empty ---
  let imagesTotal = 0;
  let imagesLoaded = 0;
  let imagesFailed = 0;
  let failedArea = 0;
  let imageArea = 0;
  const countMedium = (el: Element, failed: boolean) => {
    const rect = el.getBoundingClientRect();
    const area = Math.max(0, rect.width) * Math.max(0, rect.height);
    imagesTotal++;
    imageArea += area;
    if (failed) {
      imagesFailed++;
      failedArea += area;
    } else {
      imagesLoaded++;
      if (onFirstScreen(rect) && area > 0) markOwn(el, rect);
    }
  };
  for (const img of document.images) {
    if (!img.getAttribute("src") && !img.getAttribute("srcset")) continue;
    // A lazy image not yet loaded is neither: the visitor has not scrolled to it.
    if (!img.complete) continue;
    if (!shown(img)) continue;
    countMedium(img, img.naturalWidth === 0);
  }

  // Videos count as images do (v12): a hero's background film that finds no source it can play leaves its box
  // empty. One still fetching (or waiting for a click, `preload="none"`) is neither, like a lazy image.
  for (const video of document.querySelectorAll("video")) {
    if (!video.getAttribute("src") && !video.querySelector("source")) continue;
    if (!shown(video)) continue;
    const failed = video.error !== null || video.networkState === HTMLMediaElement.NETWORK_NO_SOURCE;
    const loaded = !failed && video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA;
    if (failed || loaded) countMedium(video, failed);
  }

  // Images a style sheet asked for (backgrounds): the resource timing entries say which answered with an error.
  let backgroundsLoaded = 0;
  let backgroundsFailed = 0;
  for (const entry of performance.getEntriesByType("resource") as PerformanceResourceTiming[]) {
    if (entry.initiatorType !== "css") continue;
    if (!/\.(png|jpe?g|gif|webp|avif|svg)(\?|#|$)/i.test(entry.name)) continue;
    const status = (entry as PerformanceResourceTiming & { responseStatus?: number }).responseStatus ?? 0;
    if (status >= 400) backgroundsFailed++;
    else if (status >= 200) backgroundsLoaded++;
  }

  // --- Author styles and decoration; backgrounds and media on the first screen ---
  let elements = 0;
  let decorated = 0;
  const UA_STYLED = new Set(["INPUT", "BUTTON", "SELECT", "TEXTAREA", "HR", "FIELDSET", "MARK", "IFRAME"]);
  const canvasKey = canvas.join(",");
  for (const el of body ? body.querySelectorAll("*") : []) {
    if (["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "BR", "WBR", "OPTION"].includes(el.tagName)) continue;
    const s = styleOf(el);
    if (s.display === "none") continue;
    const rect = el.getBoundingClientRect();
    if (rect.width < 2 || rect.height < 2) continue;
    if (s.visibility === "hidden" || s.opacity === "0") {
      // A hole: the element keeps its place in the flow but shows nothing. Only the outermost one counts, and
      // not menus, dialogs and tooltips positioned out of the flow, which wait hidden by design.
      const inFlow = s.position === "static" || s.position === "relative";
      if (inFlow && onFirstScreen(rect) && (!el.parentElement || shown(el.parentElement))) mark(rect, holes);
      continue;
    }
    elements++;
    const bg = parseColor(s.backgroundColor);
    const hasBg = (bg !== null && bg[3] > 0.05) || s.backgroundImage !== "none";
    if (!UA_STYLED.has(el.tagName)) {
      const styled =
        hasBg ||
        Number.parseFloat(s.borderTopWidth) + Number.parseFloat(s.borderLeftWidth) > 0 ||
        s.borderRadius !== "0px" ||
        s.boxShadow !== "none" ||
        s.display.includes("flex") ||
        s.display.includes("grid") ||
        s.position === "absolute" ||
        s.position === "fixed" ||
        s.position === "sticky" ||
        s.float !== "none";
      if (styled) decorated++;
    }
    if (!onFirstScreen(rect)) continue;
    const paintsBg =
      s.backgroundImage !== "none" ||
      (bg !== null &&
        bg[3] > 0.05 &&
        over(bg, backdrop(el.parentElement ?? el) ?? canvas).join(",") !== canvasKey);
    if (
      paintsBg ||
      UA_STYLED.has(el.tagName) ||
      ["SVG", "svg", "CANVAS", "VIDEO", "PICTURE"].includes(el.tagName)
    )
      markOwn(el, rect, true);
  }
  let rules = 0;
  for (const sheet of document.styleSheets) {
    try {
      rules += sheet.cssRules.length;
    } catch {
      // A cross-origin sheet hides its rules, but it applies: count it as one.
      rules += 1;
    }
  }
  const links = body
    ? [...body.querySelectorAll("a[href]")].filter((a) => a.getBoundingClientRect().width > 0)
    : [];
  const defaultLinks = links.filter((a) => {
    const c = styleOf(a).color;
    return c === "rgb(0, 0, 238)" || c === "rgb(85, 26, 139)";
  }).length;
  const bodyMargin = body ? styleOf(body).margin : "0px";

  // --- Controls: names, focus order ---
  // Form fields are counted apart (unlabelledFields): a control here is something to activate.
  const CONTROLS =
    'a[href], button, input[type="button"], input[type="submit"], input[type="reset"], input[type="image"], summary, [role="button"], [role="link"], ' +
    '[role="checkbox"], [role="radio"], [role="tab"], [role="menuitem"], [role="switch"], [role="combobox"]';
  const controls = body ? [...body.querySelectorAll(CONTROLS)].filter((el) => shown(el)) : [];
  const textOf = (el: Element): string => {
    let out = "";
    for (const child of el.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) out += child.textContent ?? "";
      else if (child instanceof Element) {
        if (child.getAttribute("aria-hidden") === "true") continue;
        if (child.tagName === "IMG") out += child.getAttribute("alt") ?? "";
        else if (child.tagName.toLowerCase() === "svg")
          out += child.getAttribute("aria-label") ?? child.querySelector("title")?.textContent ?? "";
        else out += child.getAttribute("aria-label") ?? textOf(child);
      }
    }
    return out;
  };
  const named = (el: Element): boolean => {
    if (el.getAttribute("aria-label")?.trim()) return true;
    const by = el.getAttribute("aria-labelledby");
    if (by?.split(/\s+/).some((id) => document.getElementById(id)?.textContent?.trim())) return true;
    if (el.getAttribute("title")?.trim()) return true;
    if (el instanceof HTMLInputElement) {
      if (["submit", "reset"].includes(el.type)) return true;
      if (el.type === "image") return Boolean(el.alt.trim());
      return Boolean(el.value.trim());
    }
    return textOf(el).trim().length > 0;
  };
  const unnamed = controls.filter((el) => !named(el)).length;
  const fields = body
    ? [
        ...body.querySelectorAll(
          'input:not([type="hidden"]):not([type="submit"]):not([type="button"]):not([type="reset"]):not([type="image"]), select, textarea',
        ),
      ].filter((el) => shown(el)).length
    : 0;
  const positiveTabindex = body
    ? [...body.querySelectorAll("[tabindex]")].filter((el) => Number(el.getAttribute("tabindex")) > 0).length
    : 0;
  const root = document.documentElement;

  // Controls another element covers (WCAG 2.4.11 focus not obscured; a pointer or finger at the control's centre
  // hits something else): on the first screen, the hit test at the centre answers neither the control, its
  // content, its label nor an element it sits in (an ancestor answers when the control ignores the pointer).
  const fieldSelector = 'input:not([type="hidden"]), select, textarea';
  let reachable = 0;
  let obscured = 0;
  if (body) {
    for (const el of [...controls, ...body.querySelectorAll(fieldSelector)]) {
      const rect = el.getBoundingClientRect();
      if (rect.width < 2 || rect.height < 2 || !drawn(el, rect)) continue;
      const x = rect.left + rect.width / 2;
      const y = rect.top + rect.height / 2;
      if (x < 0 || y < 0 || x >= vw || y >= vh) continue;
      reachable++;
      const hit = document.elementFromPoint(x, y);
      if (hit && moving.length > 0 && (inMotion(hit) || inMotion(el))) continue;
      if (!hit || hit === el || el.contains(hit) || hit.contains(el)) continue;
      const label = hit.closest("label");
      if (label && (label.control === el || label.contains(el))) continue;
      obscured++;
    }
  }

  // A layout collapsed around its content (blocks stacked or squeezed into shrink-to-fit boxes): text broken inside
  // its words, one letter per line, and text fields too narrow to show what is typed. Neither happens on a page laid
  // out as designed; both make the page unreadable or unusable for anyone who sees it, whatever covers what.
  let brokenWordChars = 0;
  let wordChars = 0;
  if (body) {
    const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      const text = node.textContent ?? "";
      const chars = text.replace(/\s+/g, "").length;
      if (!parent || chars === 0) continue;
      if (["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "OPTION"].includes(parent.tagName)) continue;
      if (!shown(parent)) continue;
      range.selectNodeContents(node);
      const rect = range.getBoundingClientRect();
      if (rect.width < 2 || rect.height < 2 || clippedAway(contentRegion(parent), rect)) continue;
      wordChars += chars;
      const words = text.trim().split(/\s+/).length;
      const lines = new Set<number>();
      for (const r of range.getClientRects()) if (r.width > 0) lines.add(Math.round(r.top));
      // More lines than words: the box is narrower than a word. Three lines at least, so a long address wrapped
      // once in a narrow cell does not count.
      if (lines.size >= 3 && lines.size > words) brokenWordChars += chars;
    }
  }
  const TEXT_FIELDS =
    'input:not([type="hidden"]):not([type="checkbox"]):not([type="radio"]):not([type="submit"]):not([type="button"]):not([type="reset"]):not([type="image"]):not([type="range"]):not([type="color"]):not([type="file"]), select, textarea';
  // A text field under 48 CSS px shows three or four characters of what is typed into it (WCAG 1.4.10 reflow,
  // 2.5.8 target size: a field squeezed to a sliver cannot be read back or hit).
  const collapsedFields = body
    ? [...body.querySelectorAll(TEXT_FIELDS)].filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width < 48 && drawn(el, r);
      }).length
    : 0;
  // Controls laid over each other anywhere on the page (blocks positioned on top of each other): pairs whose boxes
  // overlap by more than half the smaller, neither inside the other. Focus and a pointer land on one of two things
  // drawn in one place (WCAG 2.4.11, 1.3.2). Up to half is a designed stack (v11): an avatar group's faces overlap
  // by a third or so, each still showing most of itself.
  const boxes: { el: Element; r: DOMRect }[] = [];
  if (body) {
    for (const el of [...controls, ...body.querySelectorAll(fieldSelector)]) {
      if (boxes.length >= 400) break;
      const r = el.getBoundingClientRect();
      if (r.width >= 2 && r.height >= 2 && drawn(el, r)) boxes.push({ el, r });
    }
  }
  let overlappingControls = 0;
  for (let i = 0; i < boxes.length; i++) {
    const a = boxes[i]!;
    for (let j = i + 1; j < boxes.length; j++) {
      const b = boxes[j]!;
      if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
      const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
      const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      if (w <= 0 || h <= 0) continue;
      const smaller = Math.min(a.r.width * a.r.height, b.r.width * b.r.height);
      const la = a.el.closest("label");
      const lb = b.el.closest("label");
      if (la && la === lb) continue;
      if (w * h > 0.5 * smaller) {
        overlappingControls++;
        break;
      }
    }
  }
  // Fields whose only name is their placeholder: browsers expose it as the name, but it is gone once the visitor
  // types, so it is no label (WCAG 3.3.2; W3C WAI forms tutorial).
  const placeholderOnly = body
    ? [
        ...body.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
          'input:not([type="hidden"]):not([type="submit"]):not([type="button"]):not([type="reset"]):not([type="image"]), textarea',
        ),
      ].filter(
        (f) =>
          (f.labels?.length ?? 0) === 0 &&
          !f.getAttribute("aria-label")?.trim() &&
          !f.getAttribute("aria-labelledby") &&
          !f.getAttribute("title")?.trim() &&
          Boolean((f.getAttribute("placeholder") ?? f.getAttribute("aria-placeholder"))?.trim()),
      ).length
    : 0;

  // Fields without a visible label (WCAG 3.3.2 labels or instructions, 1.3.1): no shown label with text, and no
  // text laid out just before the field on its row (within 240 px) or just above it in its column (within 48 px),
  // or just after a checkbox or radio. Text is looked for in the field's neighbourhood only (its form or fieldset,
  // else three levels up), so a page of many fields stays cheap. A placeholder is not looked at: it is inside the
  // field and goes when the visitor types.
  let visibleFields = 0;
  let visibleUnlabelled = 0;
  if (body) {
    const hasText = (l: Element) => (l as HTMLElement).innerText.replace(/\s+/g, "").length > 0;
    const drawnByLabel = (f: HTMLInputElement) =>
      (f.type === "checkbox" || f.type === "radio") &&
      [...(f.labels ?? [])].some((l) => {
        const r = l.getBoundingClientRect();
        return r.width >= 2 && r.height >= 2 && shown(l) && hasText(l);
      });
    const candidates = [...body.querySelectorAll<HTMLInputElement>(fieldSelector)].filter(
      (f) =>
        !["submit", "button", "reset", "image", "hidden"].includes(f.type) && (shown(f) || drawnByLabel(f)),
    );
    for (const f of candidates.slice(0, 60)) {
      const box = f.getBoundingClientRect();
      // A custom checkbox or radio (v9): the input hidden, its label drawing the box beside its text. A sighted
      // visitor sees a labelled option; with the label gone the option is not on screen at all. (A hidden field
      // is among the candidates only when its label draws it.)
      if (!shown(f)) {
        visibleFields++;
        continue;
      }
      if (box.width < 2 || box.height < 2) {
        if (drawnByLabel(f)) visibleFields++;
        continue;
      }
      visibleFields++;
      const labelled = [...(f.labels ?? [])].some((l) => shown(l) && hasText(l));
      if (labelled) continue;
      let scope: Element = f;
      const group = f.closest("form, fieldset");
      if (group) scope = group;
      else
        for (let i = 0; i < 3 && scope.parentElement && scope.parentElement !== body; i++)
          scope = scope.parentElement;
      const after = f.type === "checkbox" || f.type === "radio";
      let found = false;
      const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
      let seen = 0;
      for (let node = walker.nextNode(); node && !found && seen < 400; node = walker.nextNode()) {
        seen++;
        const parent = node.parentElement;
        if (!parent || !(node.textContent ?? "").trim()) continue;
        if (
          ["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "OPTION", "TEXTAREA", "BUTTON"].includes(parent.tagName)
        )
          continue;
        if (parent.closest("button, a[href]") || !shown(parent)) continue;
        range.selectNodeContents(node);
        for (const r of range.getClientRects()) {
          if (r.width < 2 || r.height < 2) continue;
          const rowOverlap =
            Math.min(r.bottom, box.bottom) - Math.max(r.top, box.top) > 0.3 * Math.min(r.height, box.height);
          const before = rowOverlap && r.right <= box.left + 2 && r.right >= box.left - 240;
          const above =
            r.bottom <= box.top + 2 &&
            r.bottom >= box.top - 48 &&
            r.left < box.right &&
            r.right > box.left - 16;
          const beside = after && rowOverlap && r.left >= box.right - 2 && r.left <= box.right + 240;
          if (before || above || beside) {
            found = true;
            break;
          }
        }
      }
      if (!found) visibleUnlabelled++;
    }
  }

  // Fields keyboard focus reaches that nothing draws (v11; WCAG 2.4.7 focus visible): hidden by opacity or shrunk
  // under 2 px, with no shown label and no small box around them drawing them in their place. A custom checkbox
  // or radio whose label is gone: a screen reader announces it, a keyboard's focus lands on nothing visible, and a
  // sighted visitor never sees the option. A box around the field draws it when it is about a control's size (at
  // most 320 by 64 px: a styled checkbox, a file button) and paints a background or border. Buttons are left out:
  // an invisible submit button is how forms keep Enter working.
  let ghostFields = 0;
  if (body) {
    const paints = (el: Element) => {
      const s = styleOf(el);
      return (
        s.backgroundImage !== "none" ||
        (parseColor(s.backgroundColor)?.[3] ?? 0) > 0 ||
        (Number.parseFloat(s.borderTopWidth) > 0 && s.borderTopStyle !== "none")
      );
    };
    const drawnAround = (f: Element) => {
      for (let a = f.parentElement, i = 0; a && i < 2; a = a.parentElement, i++) {
        const r = a.getBoundingClientRect();
        if (r.width >= 8 && r.height >= 8 && r.width <= 320 && r.height <= 64 && shown(a) && paints(a))
          return true;
      }
      return false;
    };
    for (const f of body.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(
      fieldSelector,
    )) {
      if (f instanceof HTMLInputElement && ["submit", "button", "reset", "image"].includes(f.type)) continue;
      if (f.disabled || f.tabIndex < 0 || f.closest("[inert]") || f.getClientRects().length === 0) continue;
      if (styleOf(f).visibility !== "visible" || inMotion(f)) continue;
      const box = f.getBoundingClientRect();
      if (shown(f) && box.width >= 2 && box.height >= 2) continue;
      const labelled = [...(f.labels ?? [])].some((l) => {
        const r = l.getBoundingClientRect();
        return r.width >= 2 && r.height >= 2 && shown(l);
      });
      if (!labelled && !drawnAround(f)) ghostFields++;
    }
  }

  let covered = 0;
  for (const c of cells) covered += c;
  let ownCovered = 0;
  for (const c of own) ownCovered += c;
  // How much of the screen's width the content spans: from the leftmost column of cells holding any of it to the
  // rightmost.
  let leftColumn = COLS;
  let rightColumn = -1;
  for (let x = 0; x < COLS; x++) {
    for (let y = 0; y < ROWS; y++) {
      if (!cells[y * COLS + x]) continue;
      leftColumn = Math.min(leftColumn, x);
      rightColumn = x;
      break;
    }
  }
  let hidden = 0;
  for (const c of holes) hidden += c;
  return {
    images: {
      total: imagesTotal + backgroundsLoaded + backgroundsFailed,
      loaded: imagesLoaded + backgroundsLoaded,
      failed: imagesFailed + backgroundsFailed,
      failedAreaShare: share(failedArea, imageArea),
    },
    styles: {
      stylesheetRules: rules,
      defaultFontShare: textChars === 0 ? null : share(defaultFontChars, textChars),
      defaultLinkShare: links.length === 0 ? null : share(defaultLinks, links.length),
      bodyMargin8: bodyMargin === "8px",
      decoratedShare: share(decorated, elements),
      elements,
    },
    firstScreenCoverage: share(covered, COLS * ROWS),
    ownContent: { coverage: share(ownCovered, COLS * ROWS), words: ownWords },
    text: {
      chars: textChars,
      medianSize: medianSize === null ? null : Math.round(medianSize * 10) / 10,
      smallShare: share(smallChars, textChars),
      tinyShare: share(tinyChars, textChars),
    },
    contrast: {
      measuredChars: contrastChars,
      below45Share: share(below45, contrastChars),
      below3Share: share(below3, contrastChars),
      below2Share: share(below2, contrastChars),
    },
    layout: {
      overlappingTextShare: share(overlapChars, firstScreenChars),
      overflowRatio: round3(Math.max(1, root.scrollWidth / Math.max(1, root.clientWidth))),
      hiddenShare: share(hidden, COLS * ROWS),
      firstScreenControls: reachable,
      obscuredControls: obscured,
      brokenWordShare: share(brokenWordChars, wordChars),
      collapsedFields,
      overlappingControls,
      viewportWidth: vw,
      contentSpan:
        firstScreenTextChars < 40 || rightColumn < leftColumn
          ? null
          : share(rightColumn - leftColumn + 1, COLS),
    },
    controls: {
      total: controls.length,
      unnamed,
      fields,
      positiveTabindex,
      placeholderOnly,
      visibleFields,
      visibleUnlabelled,
      ghostFields,
    },
    unresolvedText,
  };
}
