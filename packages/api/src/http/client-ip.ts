import type { HeaderReader } from "../request/api-request";

/**
 * The client's address from X-Forwarded-For, trusting only the configured number of reverse proxies.
 *
 * Each trusted proxy appends the address it received the request from, so the entries a client can forge are
 * all on the left; the client is the entry the outermost trusted proxy wrote, `trustedProxyCount` from the
 * right. Behind one proxy (nginx in compose.yaml) that is the rightmost entry, the address nginx saw. With no
 * proxy the header holds only the peer: our own node server replaces a client's chain with it (`edge`), and
 * Next.js puts it there only when the client sent no X-Forwarded-For of its own, which is why an exposed Next.js
 * server should sit behind a proxy for per-IP limits to hold.
 */
export function clientIp(headers: HeaderReader, trustedProxyCount: number): string | null {
  const forwarded = headers.get("x-forwarded-for");
  if (!forwarded) return null;
  const hops = forwarded
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h.length > 0);
  if (hops.length === 0) return null;
  const index = Math.max(0, hops.length - Math.max(1, trustedProxyCount));
  return normalize(hops[index]!);
}

/** `::ffff:1.2.3.4` and `1.2.3.4` are one client; `[::1]:port` and `1.2.3.4:port` lose their port. */
function normalize(address: string): string {
  let a = address;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracketed) a = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(":"));
  if (a.toLowerCase().startsWith("::ffff:") && a.includes(".")) a = a.slice(7);
  return a.toLowerCase();
}
