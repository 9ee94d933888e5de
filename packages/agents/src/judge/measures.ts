import type { PageSignals, Persona, RenderingSignals } from "../types";
import {
  axePoints,
  COMPONENTS,
  type ComponentScores,
  componentScores,
  paintTime,
  speedScore,
} from "./components";

/** The severities and component scores heuristic-v2 and later build their gates from, and the words they share. */

export const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** The quality at and below which an SSE rating is the scale's bottom point (see `sseScoreV2`). */
export const QUALITY_FLOOR = 0.15;
export const round3 = (x: number) => Math.round(x * 1000) / 1000;
export const pct = (x: number) => `${Math.round(x * 100)}%`;
/** A share with one decimal, for the small ones that round to 0%. */
export const share1 = (x: number) => `${Math.round(x * 1000) / 10}%`;
export const words = (n: number) => `${n} ${n === 1 ? "word" : "words"}`;

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
export function weighedContrast(r: RenderingSignals, domWeight: number): ContrastShares {
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
export const undrawnWords = (n: number) =>
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

/** A factor in (0, 1] for a problem that spoils the whole page for a persona, with what drove it. */
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
