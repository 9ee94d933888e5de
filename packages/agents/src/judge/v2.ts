import type { JudgeTemplate, PageSignals, Persona, RenderingSignals } from "../types";
import { APPEAL_FIT, appealPosition, appealSentence, visualAppeal } from "./appeal/appeal";
import type { AppealFit } from "./appeal/model";
import { COMPONENTS, type Component } from "./components";
import {
  clamp01,
  collapsedSeverity,
  componentScoresV2,
  type Gate,
  ghostSeverity,
  namesSeverity,
  obscuredSeverity,
  overflowSeverity,
  pct,
  type Reader,
  readerOf,
  round3,
  share1,
  squeezedSeverity,
  styledIndex,
  undrawnWords,
  visibleLabelSeverity,
  weighedContrast,
  words,
} from "./measures";
import { isPicture, lowVisionFigureGate, pictureGate, pictureStylesGate, pictureTextGate } from "./picture";
import { personaWeights, templateWeights } from "./weights";

/**
 * heuristic-v2: a weighted mean of defect components (as in v1, with rendered-text measures in place of axe's
 * node counts) multiplied by gates. A gate is a factor in (0, 1] for a problem that spoils the whole page for a
 * persona — nothing on it, images broken, no author styles, unreadable text, a layout wider than the screen,
 * controls without names — so one severe problem drags every template's score down instead of being averaged
 * away among components that are fine. Sighted personas also weigh the screenshot's visual appeal, so pages
 * with the same DOM (a page that is one big image) still differ by their design.
 */

export {
  APPEAL_FIT,
  appealPosition,
  appealSentence,
  LOW_VISION_FIGURE_GROUND,
  visualAppeal,
} from "./appeal/appeal";
export { renderingEvidence } from "./evidence";
export {
  collapsedSeverity,
  componentScoresV2,
  contrastOf,
  type Gate,
  ghostSeverity,
  namesSeverity,
  obscuredSeverity,
  overflowSeverity,
  QUALITY_FLOOR,
  type Reader,
  readerOf,
  squeezedSeverity,
  styledIndex,
  visibleLabelSeverity,
} from "./measures";
export { DEFAULT_LINK_INK_FULL, GLYPH_SMALL, isPicture, PICTURE_SPAN } from "./picture";

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
    const k = reader.screenReader && !reader.lowVision ? (described ? 0.25 : 0.4) : described ? 0.55 : 0.7;
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
    // also tends to lose (order, landmarks laid out as meant) reaches them, so it costs them about two thirds as much.
    const k = reader.screenReader && !reader.lowVision ? 0.45 : 0.65;
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
