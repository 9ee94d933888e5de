import { z } from "zod";

/**
 * What a redirect route's procedure returns: the pipeline answers `302` with this `Location` and
 * `Cache-Control: no-store` (the target is typically a short-lived signed URL), and no body.
 */
export const RedirectTarget = z.object({ location: z.string().url() });
export type RedirectTarget = z.infer<typeof RedirectTarget>;

export function redirectTo(location: string): RedirectTarget {
  return { location };
}
