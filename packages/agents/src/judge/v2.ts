import type { JudgeTemplate, PageSignals, Persona, RenderingSignals, VisualSignals } from "../types";
import APPEAL_FIT_FILE from "./appeal/appeal-fit.json";
import { type AppealFit, contributions, fittedAppeal, predictedRating } from "./appeal/model";
import {
  axePoints,
  COMPONENTS,
  type Component,
  type ComponentScores,
  componentScores,
  paintTime,
  speedScore,
} from "./components";
import { personaWeights, templateWeights } from "./weights";

/** The fitted sense of design the judge ships (appeal/fit-appeal.ts wrote it). */
export const APPEAL_FIT: AppealFit = APPEAL_FIT_FILE as AppealFit;

/**
 * heuristic-v2: a weighted mean of defect components (as in v1, with rendered-text measures in place of axe's
 * node counts) multiplied by gates. A gate is a factor in (0, 1] for a problem that spoils the whole page for a
 * persona — nothing on it, images broken, no author styles, unreadable text, a layout wider than the screen,
 * controls without names — so one severe problem drags every template's score down instead of being averaged
 * away among components that are fine. Sighted personas also weigh the screenshot's visual appeal, so pages
 * with the same DOM (a page that is one big image) still differ by their design.
 */

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** The quality at and below which an SSE rating is the scale's bottom point (see `sseScoreV2`). */
export const QUALITY_FLOOR = 0.15;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const pct = (x: number) => `${Math.round(x * 100)}%`;
/** A share with one decimal, for the small ones that round to 0%. */
const share1 = (x: number) => `${Math.round(x * 1000) / 10}%`;
const words = (n: number) => `${n} ${n === 1 ? "word" : "words"}`;

/** What kind of reader a persona is, as far as the gates care. */
export interface Reader {
  /** Perceives the page through a screen reader: names and structure, not looks. */
  screenReader: boolean;
  keyboard: boolean;
  lowVision: boolean;
  phone: boolean;
  motor: boolean;
}

export function readerOf(p: Persona): Reader {
  const needs = p.accessibilityNeeds;
  return {
    screenReader: needs.includes("screen-reader"),
    keyboard: needs.includes("keyboard-only"),
    lowVision: needs.includes("low-vision"),
    phone: p.device.kind === "mobile",
    motor: needs.includes("motor"),
  };
}

/**
 * How much a page wider than the screen costs, 0..1 (v9): any sideways scrolling costs half, growing with the
 * logarithm of the width to all of it at two screens wide. A stray element 9% too wide hides a sliver (0.56); a
 * page five screens wide has to be panned along every line. Before v9 every page 40% too wide or more cost the
 * same, so a twin five screens wide that no longer overlapped anything could beat its page.
 */
export function overflowSeverity(ratio: number): number {
  return ratio <= 1.01 ? 0 : Math.min(1, 0.5 + 0.5 * Math.log2(ratio));
}

interface ContrastShares {
  measuredChars: number;
  below45Share: number;
  below3Share: number;
  below2Share: number;
}

/**
 * The DOM's contrast shares and the screenshot's (v12, the first screen's text over a picture, a video or an
 * overlay) over all the text measured, by characters, the DOM's characters counting `domWeight` each.
 */
function weighedContrast(r: RenderingSignals, domWeight: number): ContrastShares {
  const c = r.contrast;
  const dom = c.measuredChars;
  const shot = c.screenshot;
  const drawn = shot?.measuredChars ?? 0;
  const weigh = (domShare: number, shotShare: number | undefined) =>
    dom + drawn === 0 ? 0 : (domShare * dom * domWeight + (shotShare ?? 0) * drawn) / (dom + drawn);
  return {
    measuredChars: dom + drawn,
    below45Share: weigh(c.below45Share, shot?.below45Share),
    below3Share: weigh(c.below3Share, shot?.below3Share),
    // Captures made before v9 have no 2:1 share and count all text under 3:1 as faint.
    below2Share: weigh(c.below2Share ?? c.below3Share, shot?.below2Share),
  };
}

/** The rendered contrast over all the text measured: the DOM's figures and the screenshot's (v12). */
export function contrastOf(r: RenderingSignals): ContrastShares {
  const all = weighedContrast(r, 1);
  return {
    measuredChars: all.measuredChars,
    below45Share: round3(all.below45Share),
    below3Share: round3(all.below3Share),
    below2Share: round3(all.below2Share),
  };
}

/** v2 component scores: v1's formulas, with shares measured on the rendered page where the capture has them. */
export function componentScoresV2(s: PageSignals): ComponentScores {
  const r = s.rendering;
  const scores = componentScores(s);
  if (!r) return scores;
  // Published pages rarely pass axe clean; v1's half-at-10-points put nearly every real page near 0.2, where
  // it no longer told pages apart. Half at 25 points keeps it discriminating (the gates carry the severe cases).
  const axeTotal = s.axeViolations.reduce((sum, v) => sum + axePoints(v), 0);
  // An axe run that did not finish checked nothing: unknown is scored as the middle, neither a pass (which would
  // lift the page above one axe did check) nor dropped (its weight is the largest a screen-reader user has).
  scores.axe = s.axeChecked === false ? 0.5 : 25 / (25 + axeTotal);
  const contrast = contrastOf(r);
  scores.contrast =
    contrast.measuredChars === 0 ? null : 1 - 0.5 * contrast.below45Share - 0.5 * contrast.below3Share;
  scores.textSize = r.text.chars === 0 ? null : 1 - 0.6 * r.text.smallShare - 0.4 * r.text.tinyShare;
  scores.tapTargets =
    s.interactiveElements === 0 ? null : clamp01(1 - 0.8 * (s.smallTapTargets / s.interactiveElements));
  scores.overflow =
    r.layout.overflowRatio <= 1.01 ? 1 : clamp01(0.5 - 0.25 * Math.log2(r.layout.overflowRatio));
  scores.labels = 1 - namesSeverity(s, r);
  scores.integrity =
    (1 - (r.images.total === 0 ? 0 : r.images.failed / r.images.total)) * (3 / (3 + s.consoleErrors));
  const paint = paintTime(s);
  scores.speed = paint === null ? null : speedScore(paint);
  for (const c of COMPONENTS) {
    const v = scores[c];
    if (v !== null) scores[c] = round3(v);
  }
  return scores;
}

/**
 * How badly a page names its images, fields and controls, 0..1: half the mean over the kinds the page has of the
 * share left unnamed (images without a text alternative, fields without a label, controls without a name), half
 * the count of unnamed things n as n / (n + 8). The share alone saturates: a page that already misses a name on
 * each of its few kinds looks no worse when every other name goes; the count keeps reacting to each unnamed thing
 * a screen-reader user has to guess at (one costs 0.06, eight 0.25).
 */
export function namesSeverity(s: PageSignals, r: RenderingSignals): number {
  const kinds: number[] = [];
  const images = Math.max(r.images.total, s.imagesWithoutAlt);
  if (images > 0) kinds.push(s.imagesWithoutAlt / images);
  // Over the fields a screen reader meets (v8): the shown ones alone left out a checkbox its label draws, so a
  // page whose one labelled field was such a checkbox looked as unnamed as its twin with that label gone.
  const fields = Math.max(r.controls.fields ?? 0, s.formFields ?? 0, s.unlabelledFields);
  if (fields > 0) kinds.push(s.unlabelledFields / fields);
  if (r.controls.total > 0) kinds.push(r.controls.unnamed / r.controls.total);
  const share = kinds.length === 0 ? 0 : kinds.reduce((a, b) => a + b, 0) / kinds.length;
  const unnamed = s.imagesWithoutAlt + s.unlabelledFields + r.controls.unnamed;
  return round3(0.5 * share + 0.5 * (unnamed / (unnamed + 8)));
}

/**
 * How many fields lack a visible label, 0..1 (v6): half the share of shown fields with no visible text naming them,
 * half their count n as n / (n + 4). What a sighted visitor loses when labels go, whatever the accessible name
 * says; 0 on captures made before it was measured.
 */
export function visibleLabelSeverity(r: RenderingSignals): number {
  const fields = r.controls.visibleFields ?? 0;
  const n = Math.min(fields, r.controls.visibleUnlabelled ?? 0);
  if (fields === 0 || n === 0) return 0;
  return round3(0.5 * (n / fields) + 0.5 * (n / (n + 4)));
}

/**
 * How badly the layout has collapsed around its content, 0..1: text broken inside its words (a box narrower than a
 * word: one letter per line), text fields squeezed under 48 px, controls drawn over one another anywhere on the
 * page, and a phone's first screen squeezed into a strip (v10). Each is a share; they combine as independent chances
 * of meeting the defect. 0 on captures made before these were measured.
 */
export function collapsedSeverity(r: RenderingSignals): number {
  const words = clamp01((r.layout.brokenWordShare ?? 0) / 0.1);
  const textFields = r.controls.fields ?? 0;
  const fields = textFields === 0 ? 0 : clamp01((r.layout.collapsedFields ?? 0) / textFields);
  const all = r.controls.total + (r.controls.fields ?? 0);
  const over = all === 0 ? 0 : clamp01((r.layout.overlappingControls ?? 0) / all);
  // A couple of controls sharing a box (an icon over its button) is ordinary: a twentieth is allowed for.
  const overlap = over <= 0.05 ? 0 : clamp01((over - 0.05) / 0.25);
  return round3(1 - (1 - words) * (1 - fields) * (1 - overlap) * (1 - squeezedSeverity(r)));
}

/** Viewports narrower than this are a phone's: a layout there is meant to use the screen's whole width. */
const PHONE_WIDTH = 600;

/**
 * How far a phone's first screen has been squeezed into a strip, 0..1: its content spans under 60% of the screen's
 * width (a phone layout spans 85 to 100%: its cards, fields and bands reach across, whatever their text), 1 at 30%
 * or less. A desktop's narrow column (a centred sign-in card) is design, so wider viewports are not measured.
 */
export function squeezedSeverity(r: RenderingSignals): number {
  const span = r.layout.contentSpan;
  if (span === null || span === undefined || (r.layout.viewportWidth ?? PHONE_WIDTH) >= PHONE_WIDTH) return 0;
  return round3(clamp01((0.6 - span) / 0.3));
}

/**
 * How badly controls on the first screen are covered, 0..1: half the share covered, half the count n as
 * n / (n + 4), so a page whose only two buttons sit under a banner weighs like one with twenty covered links.
 * 0 when only one control is covered or at most one in twenty: a sticky header over one link is ordinary.
 */
export function obscuredSeverity(r: RenderingSignals): number {
  const total = r.layout.firstScreenControls ?? 0;
  const n = r.layout.obscuredControls ?? 0;
  if (total === 0 || n < 2 || n / total <= 0.05) return 0;
  return round3(0.5 * (n / total) + 0.5 * (n / (n + 4)));
}

/**
 * How badly fields go undrawn, 0..1 (v11): fields keyboard focus reaches that nothing draws (`ghostFields`), half
 * their share of the fields a visitor could see, half their count n as n / (n + 2), so one invisible checkbox on a
 * sign-in form costs about a third. 0 on captures made before it was measured.
 */
/** The undrawn fields in words, as the gate and the evidence both say it. */
const undrawnWords = (n: number) =>
  `${n} form ${n === 1 ? "field" : "fields"} keyboard focus reaches but nothing draws`;

export function ghostSeverity(r: RenderingSignals): number {
  const n = r.controls.ghostFields ?? 0;
  if (n === 0) return 0;
  return round3(0.5 * (n / ((r.controls.visibleFields ?? 0) + n)) + 0.5 * (n / (n + 2)));
}

/** Author styling 0..1 from the defaults a page without styles keeps; null when there is too little text to tell. */
export function styledIndex(r: RenderingSignals): number | null {
  if (r.text.chars < 40) return null;
  const parts: [number | null, number][] = [
    [r.styles.defaultFontShare === null ? null : 1 - r.styles.defaultFontShare, 3],
    [r.styles.defaultLinkShare === null ? null : 1 - r.styles.defaultLinkShare, 2],
    [r.styles.bodyMargin8 ? 0 : 1, 1],
    [clamp01(r.styles.decoratedShare / 0.1), 2],
    [clamp01(r.styles.stylesheetRules / 30), 2],
  ];
  let sum = 0;
  let total = 0;
  for (const [v, w] of parts) {
    if (v === null) continue;
    sum += v * w;
    total += w;
  }
  return total === 0 ? null : round3(sum / total);
}

/**
 * Visual appeal 0..1 from the screenshot (v14): the rating people would give the design as the fitted model
 * predicts it (appeal/model.ts, fitted on the 300 training pages of Reinecke & Gajos 2014), from the training
 * set's 5th percentile (0) to its 95th (1). `parts` keeps the measures' readings for the explanation. Every sighted
 * persona shares this sense of design; what a persona needs on top (contrast and size, names, tap targets and
 * speed) is its gates' and components' work.
 */
export function visualAppeal(
  v: VisualSignals,
  fit: AppealFit = APPEAL_FIT,
): { appeal: number; predicted: number; parts: Record<string, number> } {
  const parts: Record<string, number> = {};
  for (const c of contributions(fit, v)) parts[c.name] = c.points;
  return { appeal: fittedAppeal(fit, v), predicted: predictedRating(fit, v), parts };
}

/** How much more figure-ground contrast weighs for a low-vision persona (v7; from v14 in its own gate). */
export const LOW_VISION_FIGURE_GROUND = 3;

/**
 * Where an appeal falls on the gate's range, 0..1. From v14 the fitted appeal is already spread between the
 * training set's 5th and 95th percentiles, so it is its own position.
 */
export function appealPosition(appeal: number): number {
  return round3(clamp01(appeal));
}

/** What most moved the predicted rating, in words: the two measures that helped most and hurt most. */
export function appealDrivers(fit: AppealFit, v: VisualSignals): { helped: string[]; hurt: string[] } {
  const all = contributions(fit, v);
  const merged = new Map<string, number>();
  for (const c of all) {
    const key = c.words.replace(/ \(.*\)$/, "");
    merged.set(key, (merged.get(key) ?? 0) + c.points);
  }
  const sorted = [...merged.entries()].sort((a, b) => b[1] - a[1]);
  return {
    helped: sorted
      .filter(([, p]) => p >= 0.1)
      .slice(0, 2)
      .map(([w]) => w),
    hurt: sorted
      .filter(([, p]) => p <= -0.1)
      .slice(-2)
      .reverse()
      .map(([w]) => w),
  };
}

/** The screenshot's measures, in words. */
function measureWords(v: VisualSignals): string {
  const words = [
    `colourfulness ${v.colourfulness}`,
    `edge density ${pct(v.edgeDensity)}${v.quadtreeDensity === undefined ? "" : `, quadtree ${v.quadtreeDensity} per 10k`}`,
    `whitespace ${pct(v.whitespace)}`,
    `balance ${v.balance}`,
    `symmetry ${v.symmetry}`,
  ];
  if (v.figureGround !== undefined) words.push(`figure-ground ${v.figureGround}`);
  if (v.alignment !== undefined) words.push(`alignment ${v.alignment}`);
  if (v.dominantColours !== undefined) words.push(`${v.dominantColours} dominant colours`);
  if (v.pictureShare !== undefined) words.push(`pictures ${pct(v.pictureShare)}`);
  if (v.glyphHeight !== undefined && v.glyphHeight !== null)
    words.push(`text strokes ${v.glyphHeight} px tall`);
  return words.join(", ");
}

/** The fitted appeal in a plain sentence's words: what people would rate the design and why. */
export function appealSentence(v: VisualSignals, fit: AppealFit = APPEAL_FIT): string {
  const { predicted } = visualAppeal(v, fit);
  const { helped, hurt } = appealDrivers(fit, v);
  const why = [
    helped.length ? `helped by its ${helped.join(" and ")}` : "",
    hurt.length ? `held back by its ${hurt.join(" and ")}` : "",
  ].filter(Boolean);
  return `people would rate its design about ${predicted.toFixed(1)} of 9${why.length ? ` (${why.join(", ")})` : ""}`;
}

export interface Gate {
  name:
    | "content"
    | "images"
    | "styles"
    | "readability"
    | "overflow"
    | "layout"
    | "hidden"
    | "obscured"
    | "collapsed"
    | "ghost"
    | "names"
    | "labels"
    | "appeal"
    | "picture";
  factor: number;
  /** What drove it, in words. */
  reason: string;
}

/**
 * How much of a page there is for this reader, 0..1 (1: a full page's worth). From v11 only the page's own content
 * counts, apart from its navigation and sidebars: a menu around an empty view is not a page's worth. Captures made
 * before keep the whole page's words and coverage.
 */
function contentAmount(s: PageSignals, r: RenderingSignals, reader: Reader): number {
  const words = r.ownContent?.words ?? s.wordCount;
  // A short page can be complete (v14): a checkout form of 27 words with five labelled fields and a button is all
  // the page it needs to be. Each named field counts as four words, each image's text alternative as five; a screen reader reads the alternative of an image that failed to load as of one that loaded.
  const namedFields = Math.max(0, (r.controls.fields ?? s.formFields ?? 0) - s.unlabelledFields);
  // A form's own buttons count with it (two at most), not a menu's links: a menu around nothing is no page.
  const formControls = namedFields > 0 ? Math.min(2, Math.max(0, r.controls.total - r.controls.unnamed)) : 0;
  const images = reader.screenReader && !reader.lowVision ? r.images.total : r.images.loaded;
  const described = Math.max(0, images - s.imagesWithoutAlt);
  const heard = clamp01((words + 5 * described + 4 * (namedFields + formControls)) / 60);
  // A screen-reader user with low vision also sees the page in part (appeal applies to them too): a page that is
  // one picture holds content for them, where a screen reader alone finds nothing in it.
  if (reader.screenReader && !reader.lowVision) return heard;
  return Math.max(heard, clamp01((r.ownContent?.coverage ?? r.firstScreenCoverage) / 0.2));
}

/** The gates that apply to one page for one persona and template, strongest first. */
export function gatesFor(
  s: PageSignals,
  reader: Reader,
  template: Pick<JudgeTemplate, "sourceBuiltInId">,
  fit: AppealFit = APPEAL_FIT,
): Gate[] {
  const r = s.rendering;
  if (!r) return [];
  const gates: Gate[] = [];

  const amount = contentAmount(s, r, reader);
  if (amount < 1) {
    gates.push({
      name: "content",
      factor: 0.25 + 0.75 * amount ** 0.7,
      reason:
        reader.screenReader && !reader.lowVision
          ? `almost nothing to hear: ${words(r.ownContent?.words ?? s.wordCount)}${r.ownContent ? " outside its navigation" : ""}`
          : r.ownContent
            ? `outside navigation and sidebars, ${share1(r.ownContent.coverage)} of the first screen holds content and the page has ${words(r.ownContent.words)}`
            : `${share1(r.firstScreenCoverage)} of the first screen holds content and the page has ${words(s.wordCount)}`,
    });
  }

  if (r.images.failed > 0) {
    // v14: what a failed image costs depends on what the reader loses. A text alternative stands in for it (the
    // browser draws it in the image's place, a screen reader reads it as it would for a loaded image), so with
    // every image described a sighted reader loses the picture and a screen-reader user little (the page's own images are gone for a sighted helper, and a failed image
    // is often a failed page); a missing
    // alternative is the names gate's. Half the share failed, a fifth the empty image area, the rest their count
    // n as n / (n + 3): one failed image of one costs a sighted reader about two points of seven, not the scale.
    const n = r.images.failed;
    const severity = 0.5 * (n / r.images.total) + 0.2 * r.images.failedAreaShare + 0.3 * (n / (n + 3));
    const described = s.imagesWithoutAlt === 0;
    const k = reader.screenReader && !reader.lowVision ? (described ? 0.1 : 0.4) : described ? 0.55 : 0.7;
    gates.push({
      name: "images",
      factor: Math.max(0.3, 1 - k * severity),
      reason: `${n === 1 && r.images.total === 1 ? "the page's one image" : `${n} of ${r.images.total} images`} failed to load${described ? " (a text alternative stands in)" : ""}`,
    });
  }

  const styled = styledIndex(r);
  if (styled !== null && styled < 0.7) {
    const missing: string[] = [];
    if ((r.styles.defaultFontShare ?? 0) > 0.5) missing.push("text in the browser's default serif");
    if ((r.styles.defaultLinkShare ?? 0) > 0.5) missing.push("links in the default blue");
    if (r.styles.stylesheetRules === 0) missing.push("no style sheet rules");
    // A screen-reader user without sight does not see fonts or link colours (v14): only what unstyled markup
    // also tends to lose (order, landmarks laid out as meant) reaches them, so it costs them a third as much.
    const k = reader.screenReader && !reader.lowVision ? 0.25 : 0.65;
    gates.push({
      name: "styles",
      factor: 1 - k * (1 - styled / 0.7),
      reason: `few author styles apply (styling ${styled}${missing.length ? `: ${missing.join(", ")}` : ""})`,
    });
  }

  // Two measures must agree before text is called illegible: when axe, which resolves what is painted behind
  // text its own way and leaves doubtful cases out, finds no contrast failure, the rendered shares count a quarter.
  // Without an axe result there is no second opinion, and the rendered shares count half.
  // Text read on the screenshot (v12) counts in full: it is what is drawn, and axe leaves text over pictures out
  // of its verdict, so its silence there is no second opinion.
  const agree = s.axeChecked === false ? 0.5 : s.contrastFailures > 0 ? 1 : 0.25;
  // Text under 2:1 is faint to everyone; between 2:1 and 3:1 it fails WCAG yet most readers still read it (a
  // template's #999 body text on white is 2.8:1), so it costs half as much (v9).
  const { below2Share: c2, below3Share: c3, below45Share: c45 } = weighedContrast(r, agree);
  const { tinyShare: tiny, smallShare: small } = r.text;
  const severity =
    0.5 * c2 +
    0.25 * Math.max(0, c3 - c2) +
    0.15 * Math.max(0, c45 - c3) +
    0.6 * tiny +
    0.15 * Math.max(0, small - tiny);
  if (severity > 0.02 && r.text.chars > 0) {
    const strength = reader.lowVision ? 1.2 : reader.screenReader ? 0.8 : 1;
    const words: string[] = [];
    if (c45 > 0)
      words.push(
        c2 > 0
          ? `${pct(c2)} of the text below 2:1 contrast, ${pct(c3)} below 3:1 and ${pct(c45)} below 4.5:1`
          : `${pct(c3)} of the text below 3:1 contrast and ${pct(c45)} below 4.5:1`,
      );
    if (small > 0)
      words.push(
        `${pct(small)} of the text under 12 px (${pct(tiny)} under 9 px, median ${r.text.medianSize} px)`,
      );
    gates.push({
      name: "readability",
      factor: Math.max(0.25, 1 - strength * severity),
      reason: words.join("; "),
    });
  }

  if (r.layout.overflowRatio > 1.01) {
    const k = reader.phone ? 0.6 : reader.lowVision ? 0.55 : 0.45;
    gates.push({
      name: "overflow",
      factor: 1 - k * overflowSeverity(r.layout.overflowRatio),
      reason: `the page is ${pct(r.layout.overflowRatio - 1)} wider than the screen`,
    });
  }

  const overlap = r.layout.overlappingTextShare ?? 0;
  if (overlap > 0.05) {
    gates.push({
      name: "layout",
      // Past a tenth the page is visibly broken, not a badge over a heading: a step of 0.15 on top of the share.
      factor: Math.max(0.3, 1 - 0.8 * overlap - 0.15 * clamp01((overlap - 0.05) / 0.05)),
      reason: `${pct(overlap)} of the first screen's text is drawn over other text`,
    });
  }

  // Holes: content laid out but not shown (an animation script that never ran, a half-rendered page). Hidden
  // content is also hidden from a screen reader, so every reader loses it.
  const hidden = r.layout.hiddenShare ?? 0;
  if (hidden > 0.03) {
    gates.push({
      name: "hidden",
      factor: Math.max(0.35, 1 - 1.2 * hidden),
      reason: `${pct(hidden)} of the first screen is laid out for content that does not show`,
    });
  }

  // Controls covered by other content (WCAG 2.4.11 focus not obscured, 2.5.8 targets): a finger or pointer at the
  // control lands on something else, and keyboard focus moves to a control nobody can see. A screen-reader user
  // meets it too: focus and the reading cursor go to things a sighted colleague cannot find, and activating
  // "by click", as screen readers do, hits whatever covers the control.
  const obscured = obscuredSeverity(r);
  if (obscured > 0) {
    const k = reader.phone || reader.motor ? 0.75 : reader.screenReader || reader.keyboard ? 0.6 : 0.5;
    gates.push({
      name: "obscured",
      factor: Math.max(0.3, 1 - k * obscured),
      reason: `${r.layout.obscuredControls} of the ${r.layout.firstScreenControls} controls on the first screen are covered by other content`,
    });
  }

  // A layout collapsed around its content (WCAG 1.4.10 reflow, 1.3.2 meaningful sequence): words broken letter by
  // letter, fields squeezed to a sliver, controls drawn over each other. A screen-reader user hears the text
  // intact, but focus jumps about a screen that shows nothing where it lands, which a sighted colleague helping
  // and the many screen-reader users with some sight meet; fields are still operable by keyboard, so it bites
  // least for them.
  const collapsed = collapsedSeverity(r);
  if (collapsed > 0) {
    const k = reader.phone || reader.lowVision ? 0.7 : reader.screenReader ? 0.5 : 0.6;
    const parts: string[] = [];
    if ((r.layout.brokenWordShare ?? 0) > 0)
      parts.push(`${pct(r.layout.brokenWordShare ?? 0)} of the text broken inside its words`);
    if ((r.layout.collapsedFields ?? 0) > 0)
      parts.push(`${r.layout.collapsedFields} of ${r.controls.fields} fields squeezed under 48 px`);
    if ((r.layout.overlappingControls ?? 0) > 0)
      parts.push(`${r.layout.overlappingControls} controls drawn over another`);
    if (squeezedSeverity(r) > 0)
      parts.push(`the first screen squeezed into ${pct(r.layout.contentSpan ?? 0)} of the phone's width`);
    gates.push({
      name: "collapsed",
      factor: Math.max(0.3, 1 - k * collapsed),
      reason: `the layout has collapsed: ${parts.join(", ")}`,
    });
  }

  // Fields nothing draws (WCAG 2.4.7 focus visible, 1.3.1): keyboard focus lands on nothing visible, a pointer or
  // finger cannot find them, and a sighted visitor never sees the option. A screen reader announces them as any
  // other field (their missing name is the names gate's), so a screen-reader user without sight meets only the
  // focus a sighted colleague cannot follow.
  const ghost = ghostSeverity(r);
  if (ghost > 0) {
    const k = reader.screenReader && !reader.lowVision ? 0.3 : reader.keyboard || reader.motor ? 0.6 : 0.5;
    gates.push({
      name: "ghost",
      factor: 1 - k * ghost,
      reason: undrawnWords(r.controls.ghostFields ?? 0),
    });
  }

  const missing = s.imagesWithoutAlt + s.unlabelledFields + r.controls.unnamed;
  if (missing > 0) {
    const severityNames = namesSeverity(s, r);
    const k = reader.screenReader ? 1 : reader.keyboard ? 0.85 : 0.8;
    const parts: string[] = [];
    if (s.imagesWithoutAlt > 0) parts.push(`${s.imagesWithoutAlt} images without a text alternative`);
    if (s.unlabelledFields > 0) {
      const ph = Math.min(s.unlabelledFields, r.controls.placeholderOnly ?? 0);
      parts.push(
        `${s.unlabelledFields} form fields without a label${ph > 0 ? ` (${ph} named only by a placeholder)` : ""}`,
      );
    }
    if (r.controls.unnamed > 0)
      parts.push(`${r.controls.unnamed} of ${r.controls.total} controls without a name`);
    gates.push({ name: "names", factor: 1 - k * severityNames, reason: parts.join(", ") });
  }

  // Fields without a visible label (WCAG 3.3.2, 1.3.1): a sighted visitor has to guess what to type, and once
  // they type a placeholder is gone too. A screen-reader user hears the accessible name instead (the names gate);
  // with low vision they also lose the words a magnifier would show beside the field.
  const unseen = visibleLabelSeverity(r);
  if (unseen > 0 && (!reader.screenReader || reader.lowVision)) {
    const k = reader.screenReader ? 0.2 : reader.lowVision ? 0.45 : 0.35;
    gates.push({
      name: "labels",
      factor: 1 - k * unseen,
      reason: `${r.controls.visibleUnlabelled} of ${r.controls.visibleFields} form fields have no visible label`,
    });
  }

  // Sighted readers, and a screen-reader user with low vision who still sees the page in part.
  if ((!reader.screenReader || reader.lowVision) && s.visual) {
    const strength =
      template.sourceBuiltInId === "visual-design" || template.sourceBuiltInId === "design-system"
        ? 0.6
        : template.sourceBuiltInId === "accessibility"
          ? 0.2
          : 0.4;
    const { appeal } = visualAppeal(s.visual, fit);
    gates.push({
      name: "appeal",
      factor: 1 - strength * (1 - appealPosition(appeal)),
      reason: appealSentence(s.visual, fit),
    });
  }

  for (const g of gates) g.factor = round3(g.factor);
  return gates.sort((a, b) => a.factor - b.factor);
}

/**
 * A page that is one picture: a single image that loaded, next to no text and nothing to operate. That is how a
 * design reaches the judge as an image (an image file stimulus, which the browser shows in its own image document,
 * or a page that is only a screenshot, as designs rated by people from screenshots are served). Its markup is a
 * wrapper the design's author did not write, so its defects (an image without `alt`, no headings) are the same for
 * every design and say nothing about it (v7).
 */
export function isPicture(s: PageSignals): boolean {
  const r = s.rendering;
  if (!r || !s.visual) return false;
  return (
    r.images.total === 1 &&
    r.images.loaded === 1 &&
    r.images.failed === 0 &&
    s.wordCount <= 3 &&
    s.interactiveElements === 0 &&
    r.controls.total === 0 &&
    (r.controls.fields ?? 0) === 0
  );
}

/**
 * Where a picture's design lands on the log scale of quality (v7): a plain failure of every published correlate
 * (appeal position 0) just above the floor, a design that meets them all near the top. A picture's appeal is all
 * the judge can see of it, so it spreads over most of the scale, where on a page with markup it is one gate among
 * many and moves a rating by a point or two.
 */
export const PICTURE_SPAN = { low: 0.1, high: 0.95 } as const;

/** A picture's quality for a persona who sees it: its design's appeal spread over the scale. */
function pictureGate(s: PageSignals, fit: AppealFit): Gate {
  const { appeal } = visualAppeal(s.visual!, fit);
  const position = appealPosition(appeal);
  const scalePosition = PICTURE_SPAN.low + (PICTURE_SPAN.high - PICTURE_SPAN.low) * position;
  return {
    name: "picture",
    factor: QUALITY_FLOOR ** (1 - scalePosition),
    reason: `the page is one picture, so its design is judged from the screenshot: ${appealSentence(s.visual!, fit)}`,
  };
}

/**
 * Weak figure-ground contrast on a picture, for low vision (v14; before, it weighed three times in their appeal):
 * Legge et al. find reading speed falls with contrast long before it does for normal sight. From a mean edge step
 * of 0.2 (about 50 of 255 levels) down to 0.094, the edge threshold, up to a quarter of the quality.
 */
function lowVisionFigureGate(v: VisualSignals, reader: Reader): Gate[] {
  const fg = v.figureGround;
  if (!reader.lowVision || fg === undefined || fg >= 0.2) return [];
  return [
    {
      name: "readability",
      factor: 1 - 0.25 * clamp01((0.2 - fg) / 0.106),
      reason: `shapes and text stand out weakly from their ground (mean edge step ${fg}), hard to see with low vision`,
    },
  ];
}

/** Default link ink at which a screenshot counts as wholly unstyled: 0.1% of the screen in default blue. */
export const DEFAULT_LINK_INK_FULL = 0.001;

/**
 * A picture drawn in the browser's default link colours shows a page whose style sheets did not apply (v13): the
 * screenshot's counterpart of the DOM's styles gate, which a picture's wrapper cannot measure. Author styles replace
 * those colours on nearly every designed page, so their ink says what a visitor sees at a glance: an unstyled page.
 * Up to half the quality, in proportion to the ink up to `DEFAULT_LINK_INK_FULL`.
 */
function pictureStylesGate(v: VisualSignals): Gate[] {
  const ink = v.defaultLinkInk ?? 0;
  if (ink === 0) return [];
  const severity = clamp01(ink / DEFAULT_LINK_INK_FULL);
  return [
    {
      name: "styles",
      factor: 1 - 0.5 * severity,
      reason: `the picture shows the browser's default link colours (${share1(ink)} of the screen), as a page whose style sheets did not apply`,
    },
  ];
}

/** Stroke heights (CSS px) between which a picture's text goes from readable to tiny: 12 px text to 8 px text. */
export const GLYPH_SMALL = { readable: 8.5, tiny: 5.5 } as const;

/**
 * A picture whose text is drawn small (v13): the screenshot's counterpart of the readability gate's text size. Its
 * tallest strokes (`glyphHeight`, capitals and ascenders) are about 0.7 of the font size, so 8.5 px strokes are
 * 12 px text, where the DOM's small text begins, and 5.5 px are 8 px text, below its tiny 9 px. At the tiny end it
 * costs 0.6 of the quality, what the readability gate charges for all text under 9 px, scaled by the persona as
 * that gate is (low vision 1.2).
 */
function pictureTextGate(v: VisualSignals, reader: Reader): Gate[] {
  const h = v.glyphHeight;
  if (h === null || h === undefined || h >= GLYPH_SMALL.readable) return [];
  const severity = clamp01((GLYPH_SMALL.readable - h) / (GLYPH_SMALL.readable - GLYPH_SMALL.tiny));
  const strength = reader.lowVision ? 1.2 : 1;
  return [
    {
      name: "readability",
      factor: Math.max(0.25, 1 - 0.6 * strength * severity),
      reason: `the picture's text is drawn small: its tallest strokes average ${h} px, as text of about ${Math.round(h / 0.7)} px`,
    },
  ];
}

/** v2 quality of one page for one template and persona: the weighted mean of components times the gates. */
export function qualityV2(
  signals: PageSignals,
  template: Pick<JudgeTemplate, "sourceBuiltInId">,
  persona: Persona,
  fit: AppealFit = APPEAL_FIT,
): {
  quality: number;
  base: number;
  gates: Gate[];
  formula: string;
  direct: boolean;
  personaFactors: string[];
} {
  const base = templateWeights(template.sourceBuiltInId);
  const { weights, applied } = personaWeights(base.weights, persona);
  const reader = readerOf(persona);
  if (isPicture(signals) && (!reader.screenReader || reader.lowVision)) {
    // A persona who sees a picture judges the design in it; its wrapper's markup is not the design's (v7). How
    // much of the screen the picture fills still counts (the content gate).
    const gates = [
      pictureGate(signals, fit),
      ...pictureStylesGate(signals.visual!),
      ...pictureTextGate(signals.visual!, reader),
      ...lowVisionFigureGate(signals.visual!, reader),
      ...gatesFor(signals, reader, template, fit).filter((g) => g.name === "content"),
    ].sort((a, b) => a.factor - b.factor);
    for (const g of gates) g.factor = round3(g.factor);
    return {
      quality: round3(gates.reduce((acc, g) => acc * g.factor, 1)),
      base: 1,
      gates,
      formula: base.formula,
      direct: base.direct,
      personaFactors: applied,
    };
  }
  const scores = componentScoresV2(signals);
  let sum = 0;
  let total = 0;
  for (const c of COMPONENTS) {
    const w = weights[c as Component];
    const v = scores[c];
    if (w === undefined || v === null) continue;
    sum += w * v;
    total += w;
  }
  const mean = total === 0 ? 0.5 : sum / total;
  const gates = gatesFor(signals, reader, template, fit);
  const q = gates.reduce((acc, g) => acc * g.factor, mean);
  return {
    quality: round3(q),
    base: round3(mean),
    gates,
    formula: base.formula,
    direct: base.direct,
    personaFactors: applied,
  };
}

/** The rendering and screenshot facts behind a v2 rating, in words, to go with v1's defect facts. */
export function renderingEvidence(s: PageSignals): string[] {
  const r = s.rendering;
  const facts: string[] = [];
  if (!r) return facts;
  facts.push(
    r.images.total === 0
      ? "no images"
      : r.images.failed > 0
        ? `${r.images.total === 1 ? "the page's one image" : `${r.images.failed} of ${r.images.total} images`} failed to load (${pct(r.images.failedAreaShare)} of the image area left empty)`
        : r.images.total === 1
          ? "the page's one image loaded"
          : `all ${r.images.total} images loaded`,
  );
  const styled = styledIndex(r);
  if (styled !== null) facts.push(`author styling ${styled} (${r.styles.stylesheetRules} CSS rules)`);
  facts.push(`${pct(r.firstScreenCoverage)} of the first screen holds content`);
  const contrast = contrastOf(r);
  if (contrast.measuredChars > 0)
    facts.push(
      !contrast.below2Share
        ? `${pct(contrast.below3Share)} of the text below 3:1 contrast, ${pct(contrast.below45Share)} below 4.5:1`
        : `${pct(contrast.below2Share)} of the text below 2:1 contrast, ${pct(contrast.below3Share)} below 3:1, ${pct(contrast.below45Share)} below 4.5:1`,
    );
  const shot = r.contrast.screenshot;
  if (shot && shot.measuredChars > 0)
    facts.push(
      `${shot.measuredChars} characters over a picture, video or overlay read on the screenshot: ` +
        `${pct(shot.below3Share)} below 3:1, ${pct(shot.below45Share)} below 4.5:1`,
    );
  if (r.text.medianSize !== null) facts.push(`median text size ${r.text.medianSize} px`);
  if (r.layout.overflowRatio > 1.01)
    facts.push(`layout ${pct(r.layout.overflowRatio - 1)} wider than the screen`);
  if (r.controls.unnamed > 0)
    facts.push(`${r.controls.unnamed} of ${r.controls.total} controls have no accessible name`);
  if ((r.layout.obscuredControls ?? 0) > 0)
    facts.push(
      `${r.layout.obscuredControls} of ${r.layout.firstScreenControls} first-screen controls covered by other content`,
    );
  if (r.controls.positiveTabindex > 0)
    facts.push(`${r.controls.positiveTabindex} elements reorder keyboard focus with a positive tabindex`);
  if ((r.controls.visibleUnlabelled ?? 0) > 0)
    facts.push(
      `${r.controls.visibleUnlabelled} of ${r.controls.visibleFields} form fields without a visible label`,
    );
  if ((r.controls.ghostFields ?? 0) > 0) facts.push(undrawnWords(r.controls.ghostFields ?? 0));
  if (s.visual) {
    const { appeal, predicted } = visualAppeal(s.visual);
    facts.push(
      `screenshot: ${measureWords(s.visual)}; predicted rating ${predicted} of 9, visual appeal ${appeal}`,
    );
  }
  return facts;
}
