/** A 95% interval of a mean as the API reports it: the t-interval, which may run past the rating scale. */
export interface Interval {
  lower: number;
  upper: number;
}

export interface ShownInterval extends Interval {
  /** The reported interval ran past an end of the scale and was cut to it for display. */
  clamped: boolean;
}

/**
 * A mean of scores on a scale cannot leave the scale, so the part of a t-interval past either end says nothing;
 * with few ratings (n = 2 gives t = 12.7) it can be several times the scale's width. The dashboard shows the interval
 * cut to the scale and says so; the API keeps the raw interval, so clients can compute with it.
 */
export function intervalOnScale(ci: Interval, min: number, max: number): ShownInterval {
  const lower = Math.max(ci.lower, min);
  const upper = Math.min(ci.upper, max);
  return { lower, upper, clamped: lower !== ci.lower || upper !== ci.upper };
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
