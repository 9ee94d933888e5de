/**
 * Where to send a user after signing in: `next` read as a URL relative to `origin`, kept only when it stays on
 * that origin. Browsers read `/\evil.example` and `/<tab>/evil.example` as `//evil.example`, another host, so a
 * prefix check on the raw string is not enough; resolving it as the browser will is, and so is resolving the
 * answer again.
 */
export function sameOriginPath(
  next: string | null | undefined,
  origin: string,
  fallback = "/evaluations",
): string {
  if (!next) return fallback;
  try {
    const url = new URL(next, origin);
    const home = new URL(origin).origin;
    if (url.origin !== home) return fallback;
    const path = `${url.pathname}${url.search}${url.hash}`;
    // Dot segments resolve away: `/.//evil.example` and `/%2e//evil.example` have the path `//evil.example`, which
    // a browser navigating to it reads as another host. What is answered must itself resolve on this origin.
    if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return fallback;
    if (new URL(path, origin).origin !== home) return fallback;
    return path;
  } catch {
    return fallback;
  }
}
