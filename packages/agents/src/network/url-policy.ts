import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isPublicAddress } from "./addresses";

/** Resolves a host name to every address it has, IPv4 and IPv6. */
export type HostResolver = (host: string) => Promise<string[]>;

const systemResolver: HostResolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Schemes that never open a connection of their own. */
const LOCAL_SCHEMES = new Set(["data:", "blob:", "about:"]);

/** How long one host's answer is reused; a page fetches dozens of resources from the same few hosts. */
const CACHE_MS = 30_000;

/**
 * The default address guard for an autouser's browser: http(s) URLs without credentials whose host resolves
 * only to public addresses (every address counts, as the browser may connect to any of them). Loopback,
 * private, link-local and cloud-metadata targets are refused, as they are for webhooks.
 */
export function publicUrlsOnly(resolve: HostResolver = systemResolver): (url: string) => Promise<boolean> {
  const cache = new Map<string, { allowed: boolean; at: number }>();
  return async (raw) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return false;
    }
    if (LOCAL_SCHEMES.has(url.protocol)) return true;
    if (url.protocol !== "http:" && url.protocol !== "https:") return false;
    if (url.username || url.password) return false;
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host)) return isPublicAddress(host);
    const cached = cache.get(host);
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.allowed;
    let allowed: boolean;
    try {
      const addresses = await resolve(host);
      allowed = addresses.length > 0 && addresses.every(isPublicAddress);
    } catch {
      allowed = false;
    }
    cache.set(host, { allowed, at: Date.now() });
    return allowed;
  };
}
