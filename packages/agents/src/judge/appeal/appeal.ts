import type { VisualSignals } from "../../types";
import { clamp01, pct, round3 } from "../measures";
import APPEAL_FIT_FILE from "./appeal-fit.json";
import { type AppealFit, contributions, fittedAppeal, predictedRating } from "./model";

/** The fitted sense of design the judge ships (fit-appeal.ts wrote it). */
export const APPEAL_FIT: AppealFit = APPEAL_FIT_FILE as AppealFit;

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
export function measureWords(v: VisualSignals): string {
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
