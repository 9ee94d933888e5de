import type { PageSignals } from "../types";
import { measureWords, visualAppeal } from "./appeal/appeal";
import { contrastOf, pct, styledIndex, undrawnWords } from "./measures";

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
