// No imports but types: the design-tool plugin's UI frame bundles this alone, without the API client.
import type { Progress } from "./evaluate";

/** The progress line both clients show under their bar. */
export function progressWords(p: Progress): string {
  return p.done
    ? `Done: ${p.ratingsCreated} rating(s)${p.failed ? `, ${p.failed} run(s) failed` : ""}`
    : `${p.ratingsCreated} of ${p.plannedRatings} ratings · ${p.running} running, ${p.queued} queued`;
}

/** A score as both clients print it: the mean on its scale and how many ratings it rests on. */
export function scoreWords(s: Progress["scores"][number]): string {
  return s.value === null ? "–" : `${s.value.toFixed(2)} (${s.scale}, n=${s.n})`;
}
