/** A 95% interval of a mean as the API reports it: already cut to the scale, `clipped` when it was. */
export interface Interval {
  lower: number;
  upper: number;
  clipped?: boolean;
}

export interface ShownInterval extends Interval {
  /** The reported interval ran past an end of the scale and was cut to it for display. */
  clamped: boolean;
}

/**
 * The API cuts a mean's interval to the scale and flags it (`clipped`); cutting again here keeps intervals from
 * an older server, and from stored reports, on the scale too.
 */
export function intervalOnScale(ci: Interval, min: number, max: number): ShownInterval {
  const lower = Math.max(ci.lower, min);
  const upper = Math.min(ci.upper, max);
  return { lower, upper, clamped: ci.clipped === true || lower !== ci.lower || upper !== ci.upper };
}

/** The line under a mean: the interval on the scale, and why it was cut when it was. */
export function intervalText(
  ci: Interval,
  scale: { min: number; max: number },
  n: number,
  format: (value: number) => string,
  scaleLabel: (value: number) => string = String,
): string {
  const shown = intervalOnScale(ci, scale.min, scale.max);
  const text = `95% CI ${format(shown.lower)} to ${format(shown.upper)}`;
  if (!shown.clamped) return text;
  return `${text} (cut to the scale, ${scaleLabel(scale.min)} to ${scaleLabel(scale.max)}: ${n} ratings are too few for a narrower interval)`;
}
