/**
 * The contract between the parts of an autouser: what a browser captures of a page, who the persona is,
 * and what a judge returns. This package holds no database: the worker hands it a job and stores what
 * comes back, so every part here is testable against loopback servers alone.
 */

export const MODEL_PROVIDERS = ["openai", "anthropic", "google", "openai-compatible"] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

/** Which model a team's autousers and assistants use, and whose key pays for it. */
export interface ModelConfig {
  provider: ModelProvider;
  model: string;
  /** Plaintext only in memory, never logged; null for local servers that need none (Ollama). */
  apiKey: string | null;
  /** Required for `openai-compatible`; overrides the provider's address otherwise (tests, proxies). */
  baseUrl: string | null;
  /** `byok`: the team's own key; `platform`: the operator's default (`AUTOUSER_*`). */
  source: "byok" | "platform";
}

/** Where a rating came from: a team's key, the platform's key, or the offline heuristic judge. */
export type CredentialSource = "byok" | "platform" | "heuristic";

export type DeviceKind = "desktop" | "mobile";
export type NetworkProfile = "fast" | "slow-4g" | "slow-3g";

export interface PersonaDevice {
  kind: DeviceKind;
  viewport: { width: number; height: number };
  network: NetworkProfile;
}

export type Expertise = "novice" | "intermediate" | "expert";

/**
 * Accessibility needs a persona can declare; the heuristic judge weighs its signals by them and the LLM
 * judge is told about them. Free text beside them goes in `description`.
 */
export const ACCESSIBILITY_NEEDS = [
  "screen-reader",
  "low-vision",
  "color-blindness",
  "motor",
  "cognitive",
  "keyboard-only",
] as const;
export type AccessibilityNeed = (typeof ACCESSIBILITY_NEEDS)[number];

export interface Persona {
  name: string;
  role: string;
  description: string;
  goals: string[];
  traits: string[];
  expertise: Expertise;
  accessibilityNeeds: AccessibilityNeed[];
  device: PersonaDevice;
  /** Extra instructions the persona's author wrote for a model judge; the heuristic judge ignores it. */
  systemPrompt: string | null;
}

export type AxeImpact = "minor" | "moderate" | "serious" | "critical";

/** What a browser measured of one page; every figure is reproducible for the same page and viewport. */
export interface PageSignals {
  /** axe-core violations: rule id, impact, how many nodes, a short help text. */
  axeViolations: { id: string; impact: AxeImpact; nodes: number; help: string }[];
  /**
   * False when axe-core did not finish (it timed out or the page runs no timers): `axeViolations` is then empty
   * because nothing was checked, not because nothing failed. Absent in captures made before it was recorded.
   */
  axeChecked?: boolean;
  /** Text whose contrast falls below WCAG AA for its size. */
  contrastFailures: number;
  /** Share of visible text (by characters) smaller than 12 CSS px. */
  smallTextRatio: number;
  /** Interactive elements smaller than 24×24 CSS px (WCAG 2.2 target size). */
  smallTapTargets: number;
  interactiveElements: number;
  /** Flesch reading ease of the visible text (higher is easier), null when there is too little text. */
  readingEase: number | null;
  wordCount: number;
  /** The page is wider than the viewport. */
  horizontalOverflow: boolean;
  /** Milliseconds from navigation start. */
  timings: {
    domContentLoaded: number | null;
    load: number | null;
    largestContentfulPaint: number | null;
    /**
     * Set when the page had not finished loading within the visit's budget (ms): it was captured as far as it had
     * loaded, and this is its load time as far as the judge's speed part goes.
     */
    unfinishedAfter?: number;
  };
  brokenImages: number;
  consoleErrors: number;
  /** Images without a text alternative, form fields without a label. */
  imagesWithoutAlt: number;
  unlabelledFields: number;
  /**
   * Form fields of every kind `unlabelledFields` counts, shown or not (added for heuristic-v8; absent before): a
   * checkbox drawn by its label is hidden itself, yet a screen-reader user meets it.
   */
  formFields?: number;
  headings: number;
  landmarks: number;
  /** Rendering measures; absent on captures made before they existed. */
  rendering?: RenderingSignals | null;
  /** Screenshot measures; null when there was no screenshot, absent on older captures. */
  visual?: VisualSignals | null;
}

/**
 * What the page looks like as rendered (browser v2 measures). Optional on `PageSignals` because captures
 * stored before they existed lack them; a judge treats a missing group as "not measured".
 */
export interface RenderingSignals {
  /**
   * `img` elements with a source that finished loading (lazy ones not yet fetched are left out) and background
   * images style sheets fetched (from resource timing); from v12 also videos, one that errored or found no source
   * it can play counting as failed (one still fetching is neither). `failedAreaShare` is over `img` and `video`
   * elements.
   */
  images: { total: number; loaded: number; failed: number; failedAreaShare: number };
  /** Whether author styles apply, against Chromium's defaults. */
  styles: {
    /** CSS rules in the document's style sheets (a cross-origin sheet counts as one). */
    stylesheetRules: number;
    /** Share of visible text (by characters) in the default serif face; null without text. */
    defaultFontShare: number | null;
    /** Share of visible links in the default link colours; null without links. */
    defaultLinkShare: number | null;
    /** The body keeps the browser's 8 px margin. */
    bodyMargin8: boolean;
    /** Share of visible elements (form controls aside) with a background, border, radius, shadow, flex/grid or positioned layout. */
    decoratedShare: number;
    /** Visible elements counted. */
    elements: number;
  };
  /** Share of the first viewport covered by visible text, loaded images, form controls and painted backgrounds. */
  firstScreenCoverage: number;
  /**
   * The page's own content, apart from its navigation and sidebars (`nav`, `aside` and their roles; v11): the share
   * of the first viewport it covers, as `firstScreenCoverage` counts, and its visible words. An app whose view
   * failed to render still draws its menu. Absent in older captures.
   */
  ownContent?: { coverage: number; words: number };
  /** Visible text by characters: how much, the median font size (px) and shares under 12 px and under 9 px. */
  text: { chars: number; medianSize: number | null; smallShare: number; tinyShare: number };
  /**
   * Rendered text contrast: each text node's colour against the background found by compositing its ancestors'
   * background colours (on the first screen, the layers the hit test finds under it), weighted by characters.
   * Text over an image, a gradient, a video or an overlay is left out: on the first screen it is measured on the
   * screenshot instead (`screenshot`), below it not at all. `below2Share` (added for heuristic-v9; absent before)
   * is text faint to every reader, not only to those WCAG's 3:1 protects.
   */
  contrast: {
    measuredChars: number;
    below45Share: number;
    below3Share: number;
    below2Share?: number;
    /**
     * The first screen's text over a picture, a video or a painted overlay, which the figures above leave out:
     * its background read from the screenshot where each line is drawn (v12). Absent when there was none, and in
     * captures made before.
     */
    screenshot?: { measuredChars: number; below45Share: number; below3Share: number; below2Share: number };
  };
  /**
   * Document width over viewport width (1 when it fits), and the share of the first screen's text (by
   * characters) drawn over other text.
   */
  layout: {
    overflowRatio: number;
    overlappingTextShare: number;
    /**
     * Share of the first screen laid out for content that does not show (an element kept in the flow but
     * `visibility: hidden` or `opacity: 0`, as when an animation script never runs); absent in captures made
     * before it was measured.
     */
    hiddenShare?: number;
    /**
     * Controls and form fields whose centre is on the first screen, and those of them another element covers
     * (the hit test at the centre answers something unrelated; WCAG 2.4.11). Absent in captures made before it
     * was measured.
     */
    firstScreenControls?: number;
    obscuredControls?: number;
    /**
     * A layout collapsed around its content: the share of visible text (by characters) broken inside its words
     * (more lines than words, three at least), text fields narrower than 48 CSS px, and controls or fields laid
     * over another one's box anywhere on the page. Absent in captures made before they were measured.
     */
    brokenWordShare?: number;
    collapsedFields?: number;
    overlappingControls?: number;
    /**
     * The viewport's width in CSS px, and the share of it the first screen's content spans (text, controls, media
     * and painted boxes, as `firstScreenCoverage` counts them) from its leftmost to its rightmost; null when the
     * first screen holds under 40 characters of text. On a phone a layout squeezed into a strip leaves most of the
     * screen empty beside it. Absent in captures made before they were measured.
     */
    viewportWidth?: number;
    contentSpan?: number | null;
  };
  /** Visible controls to activate (links, buttons, ARIA widgets; form fields are `unlabelledFields`), those without an accessible name, and elements with a positive tabindex. */
  controls: {
    total: number;
    unnamed: number;
    fields: number;
    positiveTabindex: number;
    /** Fields (of `unlabelledFields`) whose only name is a placeholder; absent in older captures. */
    placeholderOnly?: number;
    /**
     * Shown fields with no visible text naming them (WCAG 3.3.2, 1.3.1): no shown label with text, and no text
     * just before them on their row or just above them in their column (beside a checkbox or radio, just after
     * it). What a sighted visitor loses when labels go, whatever the accessible name says. `visibleUnlabelled`
     * of `visibleFields`; absent in older captures.
     */
    visibleFields?: number;
    visibleUnlabelled?: number;
    /**
     * Fields keyboard focus reaches that nothing draws (v11): hidden by opacity or shrunk under 2 px, with no shown
     * label and no small box around them drawing them in their place (a custom checkbox whose label is gone).
     * Absent in older captures.
     */
    ghostFields?: number;
  };
}

/**
 * One line of first-screen text whose background the DOM cannot tell (over a picture, a video or a pseudo-element
 * overlay): where it is in CSS px of the viewport, its colour (RGBA, alpha 0..1) and its characters.
 */
export interface TextSample {
  x: number;
  y: number;
  w: number;
  h: number;
  fg: [number, number, number, number];
  chars: number;
}

/** What `measureRendering` returns: the rendering signals, and the text the capture measures on the screenshot. */
export type RenderingMeasure = RenderingSignals & { unresolvedText?: TextSample[] };

/** Measures of the viewport screenshot, read at about one sample per CSS pixel. */
export interface VisualSignals {
  /** Hasler & Süsstrunk (2003) colourfulness M (0 grey; 33 moderately, 59 quite, 82 highly colourful). */
  colourfulness: number;
  /** Share of pixels on a luminance edge: visual complexity. */
  edgeDensity: number;
  /** Share of ~16 px blocks with no edge at all. */
  whitespace: number;
  /** 1 when the edge mass is evenly spread left/right and top/bottom, towards 0 when it sits on one side. */
  balance: number;
  /** Share of edge pixels mirrored by an edge pixel across the vertical centre line. */
  symmetry: number;
  /** PNG bytes per pixel: compressed size as a second complexity measure. */
  bytesPerPixel: number;
  /**
   * Added for heuristic-v6; absent in captures made before. Quadtree leaves per 10,000 samples: blocks split while
   * their luminance varies (Reinecke et al. 2013's complexity measure, after Zheng et al. 2009).
   */
  quadtreeDensity?: number;
  /** Mean luminance step across edge pixels over 255: figure-ground contrast (Miniukovich & De Angeli 2014/2015). */
  figureGround?: number;
  /** Colours (4 bits a channel) each covering at least 0.5% of the screen: colour variability. */
  dominantColours?: number;
  /** Share of content block rows that start at one of the five commonest left edges: grid alignment. */
  alignment?: number;
  /**
   * Added for heuristic-v13; absent in captures made before. Share of 16 CSS px blocks that are pictures
   * (photographs, rendered illustrations: colour varies from sample to sample).
   */
  pictureShare?: number;
  /** Share of 16 CSS px blocks drawn on something other than the page's ground: pictures, bars, panels, cards. */
  surfaceShare?: number;
  /** Share of samples in the browser's default link colours (#0000EE, visited #551A8B). */
  defaultLinkInk?: number;
  /**
   * How tall the text is drawn, in CSS px: the mean height of the tallest tenth of its vertical strokes (capitals and
   * ascenders, about 0.7 of the font size); null when there is too little text to tell.
   */
  glyphHeight?: number | null;
  /**
   * Added for heuristic-v15: set when the page is one picture and these measures were taken on the picture's own
   * pixels at its natural size (`width` × `height` of its `naturalWidth` × `naturalHeight`: a picture over 1920 px
   * wide is scaled down to that, and only its top 1920 px are read), not on the screenshot. Absent when measured on
   * the screenshot.
   */
  picture?: { naturalWidth: number; naturalHeight: number; width: number; height: number };
}

/** One page as the agent saw it. */
export interface PageCapture {
  requestedUrl: string;
  finalUrl: string;
  title: string;
  /** PNG of the viewport; null when the page never rendered. */
  screenshot: Uint8Array | null;
  /** Visible text, cut to a bounded length. */
  visibleText: string;
  /** Playwright's aria snapshot (YAML-like text), cut to a bounded length. */
  accessibilityTree: string;
  signals: PageSignals;
  viewport: { width: number; height: number };
  capturedAt: string;
}

/** A template as the judge needs it: what to rate and on which scale. */
export interface JudgeTemplate {
  /** The template id; ratings are keyed by it (`dimensionRatings`). */
  id: string;
  name: string;
  description: string;
  question: string;
  guidelines: string;
  /** The SSE scale; SxS ratings always run -3..+3. */
  scaleMin: number;
  scaleMax: number;
  scaleLabels: Record<string, string>;
  /** The system template it derives from (`overall`, `usability`, `accessibility`, ...), if any. */
  sourceBuiltInId: string | null;
}

export type JudgeTask =
  | { type: "SSE"; capture: PageCapture }
  | { type: "SxS"; sideA: PageCapture; sideB: PageCapture };

export interface JudgeInput {
  persona: Persona;
  instructions: string | null;
  scenario: string | null;
  templates: JudgeTemplate[];
  task: JudgeTask;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** From the price table; 0 for the heuristic judge and for models without a known price. */
  costUsd: number;
}

export interface JudgeResult {
  /** Template id → integer score: SSE within the template's scale, SxS -3 (side A) .. +3 (side B). */
  ratings: Record<string, number>;
  justification: string;
  judge: "llm" | "heuristic";
  /** `provider/model` for the LLM judge, `heuristic-v15` (formerly `heuristic-v14`, `heuristic-v13`, `heuristic-v12`, `heuristic-v11`, `heuristic-v10`, `heuristic-v9`, `heuristic-v8`, `heuristic-v7`, `heuristic-v6`, `heuristic-v5`, `heuristic-v4`, `heuristic-v3`, `heuristic-v2`, `heuristic-v1`) for the heuristic one. */
  model: string;
  usage: TokenUsage;
  /** The measured facts the rating rests on, for the heuristic judge's transparency. */
  evidence: string[];
}

export interface Judge {
  readonly kind: "llm" | "heuristic";
  rate(input: JudgeInput, options?: { signal?: AbortSignal }): Promise<JudgeResult>;
}

/** A judge that could not produce a valid rating; `reason` is safe to show and store (never a key). */
export class JudgeError extends Error {
  constructor(
    readonly code: "invalid_reply" | "provider_auth" | "provider_rate_limited" | "provider_error" | "timeout",
    message: string,
    readonly retryAfterSeconds: number | null = null,
    /** Tokens the failed attempts spent (they are billed even when no rating came of them). */
    readonly usage: TokenUsage | null = null,
  ) {
    super(message);
    this.name = "JudgeError";
  }
}

/** Why a page could not be visited, captured or acted on; `message` is plain and safe to show in a run's log. */
export class PageError extends Error {
  constructor(
    readonly code: "blocked_url" | "timeout" | "navigation_failed" | "aborted",
    message: string,
  ) {
    super(message);
    this.name = "PageError";
  }
}

/** What an agent may do on a page between captures; elements are found by accessible name, as a person would. */
export type AgentAction =
  | { type: "scroll"; direction: "down" | "up" }
  | { type: "click"; name: string; role?: string }
  | { type: "type"; name: string; text: string }
  | { type: "done"; reason?: string };

export interface ActionOutcome {
  ok: boolean;
  /** What happened, for the run's turn log ("clicked link 'Checkout'", "no button named 'Buy'"). */
  detail: string;
  urlAfter: string;
}

/** One browser context for one run: the persona's viewport and network, closed when the run ends. */
export interface AgentPage {
  /** Navigates (through the address guard) and captures the page. */
  visit(url: string): Promise<PageCapture>;
  act(action: AgentAction): Promise<ActionOutcome>;
  /** Captures the page as it is now, after actions. */
  capture(): Promise<PageCapture>;
  close(): Promise<void>;
}

export interface OpenPageOptions {
  device: PersonaDevice;
  /** Per navigation; the run's whole budget is the caller's to enforce through `signal`. */
  pageTimeoutMs?: number;
  /** Aborting closes the context, so a cancelled run stops within moments. */
  signal?: AbortSignal;
  /** Every navigation and request target is checked; false refuses it (private addresses by default). */
  isAllowedUrl?: (url: string) => Promise<boolean>;
  /**
   * Runs of one partition (the team) with the same device may be served one after another by the same context,
   * cleared between them; runs of different partitions, or without one, never share a context.
   */
  partition?: string;
}

export interface AgentBrowser {
  open(options: OpenPageOptions): Promise<AgentPage>;
  /** Closes the contexts kept for later runs. */
  trim(): Promise<void>;
  close(): Promise<void>;
}

export interface LaunchOptions {
  /** Debian's chromium by default; ignored when `wsEndpoint` is set. */
  chromiumPath?: string;
  /** A remote browser service reached with Playwright's `connect`. */
  wsEndpoint?: string;
}
