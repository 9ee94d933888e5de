export const SESSION_COOKIE = "rubricon_session";

export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      if (!value) return null;
      // A value that does not decode is kept as sent: it matches no session, so it fails as a stale one does.
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
  }
  return null;
}

/** An HttpOnly, SameSite=Lax cookie; `Secure` wherever the site is served over https. */
export function httpOnlyCookie(
  name: string,
  value: string,
  opts: { secure: boolean; maxAgeSeconds: number; path?: string },
): string {
  return [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${opts.path ?? "/"}`,
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${opts.maxAgeSeconds}`,
    ...(opts.secure ? ["Secure"] : []),
  ].join("; ");
}

export function sessionCookie(value: string, opts: { secure: boolean; maxAgeSeconds: number }): string {
  return httpOnlyCookie(SESSION_COOKIE, value, opts);
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie("", { secure, maxAgeSeconds: 0 });
}
