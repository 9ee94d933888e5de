import { isOnePicture } from "../browser/picture";
import type { PageSignals, VisualSignals } from "../types";
import { appealPosition, appealSentence, visualAppeal } from "./appeal/appeal";
import type { AppealFit } from "./appeal/model";
import { clamp01, type Gate, QUALITY_FLOOR, type Reader, share1 } from "./measures";

/**
 * A page that is one picture (`isOnePicture`: a single image that loaded, next to no text and nothing to operate).
 * That is how a design reaches the judge as an image (an image file stimulus, which the browser shows in its own image
 * document, or a page that is only a screenshot, as designs rated by people from screenshots are served). Its markup
 * is a wrapper the design's author did not write, so its defects (an image without `alt`, no headings) are the same
 * for every design and say nothing about it (v7). From v15 the capture measures its look on the picture's own pixels
 * at their natural size (`VisualSignals.picture`), so every device judges the same design from the same image.
 */
export function isPicture(s: PageSignals): boolean {
  return !!s.visual && isOnePicture(s);
}

/** Where the measures of a picture's design were taken, in words. */
export function pictureSource(v: VisualSignals): string {
  const p = v.picture;
  if (!p) return "the screenshot";
  const part =
    p.width === p.naturalWidth && p.height === p.naturalHeight ? "" : `, read ${p.width} × ${p.height}`;
  return `the picture at its natural size (${p.naturalWidth} × ${p.naturalHeight} px${part})`;
}

/**
 * Where a picture's design lands on the log scale of quality (v7): a plain failure of every published correlate
 * (appeal position 0) just above the floor, a design that meets them all near the top. A picture's appeal is all
 * the judge can see of it, so it spreads over most of the scale, where on a page with markup it is one gate among
 * many and moves a rating by a point or two.
 */
export const PICTURE_SPAN = { low: 0.1, high: 0.95 } as const;

/** A picture's quality for a persona who sees it: its design's appeal spread over the scale. */
export function pictureGate(s: PageSignals, fit: AppealFit): Gate {
  const { appeal } = visualAppeal(s.visual!, fit);
  const position = appealPosition(appeal);
  const scalePosition = PICTURE_SPAN.low + (PICTURE_SPAN.high - PICTURE_SPAN.low) * position;
  return {
    name: "picture",
    factor: QUALITY_FLOOR ** (1 - scalePosition),
    reason: `the page is one picture, so its design is judged from ${pictureSource(s.visual!)}: ${appealSentence(s.visual!, fit)}`,
  };
}

/**
 * Weak figure-ground contrast on a picture, for low vision (v14; before, it weighed three times in their appeal):
 * Legge et al. find reading speed falls with contrast long before it does for normal sight. From a mean edge step
 * of 0.2 (about 50 of 255 levels) down to 0.094, the edge threshold, up to a quarter of the quality.
 */
export function lowVisionFigureGate(v: VisualSignals, reader: Reader): Gate[] {
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
export function pictureStylesGate(v: VisualSignals): Gate[] {
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
export function pictureTextGate(v: VisualSignals, reader: Reader): Gate[] {
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
