/** A 95% interval of a mean as the API reports it: already cut to the scale, `clipped` when it was. */
export interface Interval {
  lower: number;
  upper: number;
  clipped: boolean;
}

/** The line under a mean: the interval, and why it was cut to the scale when it was. */
export function intervalText(
  ci: Interval,
  scale: { min: number; max: number },
  n: number,
  format: (value: number) => string,
  scaleLabel: (value: number) => string = String,
): string {
  const text = `95% CI ${format(ci.lower)} to ${format(ci.upper)}`;
  if (!ci.clipped) return text;
  return `${text} (cut to the scale, ${scaleLabel(scale.min)} to ${scaleLabel(scale.max)}: ${n} ratings are too few for a narrower interval)`;
}
