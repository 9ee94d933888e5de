import type { AlphaStat } from "@rubricon/contracts";
import { plural } from "@/lib/format";

/** Krippendorff's conventions: at least 0.8 is reliable, 0.667 the lowest for tentative conclusions. */
export const RELIABLE = 0.8;
export const TENTATIVE = 0.667;

/** Fewer units than this give an interval too unstable to call agreement reliable or low, whatever it says. */
export const MIN_UNITS = 5;

export type AlphaLevel = "reliable" | "tentative" | "low" | "uncertain";

/**
 * The verdict on an alpha follows its interval and its sample, not the point estimate: with two designs a bootstrap
 * interval can run from below 0 up to the estimate. Reliable only when the whole interval clears 0.8, tentative when
 * it clears 0.667, low when it stays under 0.667; an interval across a threshold, no interval, or too few units is
 * uncertain.
 */
export function alphaLevel(stat: Pick<AlphaStat, "alpha" | "ci95" | "units">): AlphaLevel | null {
  if (stat.alpha === null) return null;
  if (!stat.ci95 || stat.units < MIN_UNITS) return "uncertain";
  if (stat.ci95.lower >= RELIABLE) return "reliable";
  if (stat.ci95.lower >= TENTATIVE) return "tentative";
  if (stat.ci95.upper < TENTATIVE) return "low";
  return "uncertain";
}

/** The verdict in words, with what would change it. */
export function levelText(stat: Pick<AlphaStat, "alpha" | "ci95" | "units">): string {
  const level = alphaLevel(stat);
  if (level === null) return "";
  if (level !== "uncertain") return level;
  if (stat.units < MIN_UNITS)
    return `uncertain: ${plural(stat.units, "unit")}, at least ${MIN_UNITS} are needed to judge`;
  if (!stat.ci95) return "uncertain: no interval yet";
  return "uncertain: the interval is too wide to judge; more ratings narrow it";
}
