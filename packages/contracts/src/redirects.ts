/**
 * Where to send a user after signing in: `next` read as a URL relative to `origin`, kept only when it stays on
 * that origin. Browsers read `/\evil.example` and `/<tab>/evil.example` as `//evil.example`, another host, so a
 * prefix check on the raw string is not enough; resolving it as the browser will is.
 */
export function sameOriginPath(
  next: string | null | undefined,
  origin: string,
  fallback = "/evaluations",
): string {
  if (!next) return fallback;
  try {
    const url = new URL(next, origin);
    if (url.origin !== new URL(origin).origin) return fallback;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return fallback;
  }
}
