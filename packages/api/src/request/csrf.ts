import { ApiError } from "@rubricon/core";
import type { ApiRequest } from "./api-request";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Cookie-authenticated writes must come from our own pages: the browser's `Origin` (or `Referer`) must be the
 * deployment's origin or the origin the request was addressed to.
 */
export function assertSameOrigin(req: ApiRequest, baseUrl: string): void {
  if (SAFE_METHODS.has(req.method)) return;
  const allowed = new Set([new URL(baseUrl).origin, new URL(req.url).origin]);
  const origin = req.headers.get("origin");
  let source: string | null = origin && origin !== "null" ? origin : null;
  if (!source) {
    const referer = req.headers.get("referer");
    if (referer) {
      try {
        source = new URL(referer).origin;
      } catch {
        source = null;
      }
    }
  }
  if (!source || !allowed.has(source)) {
    throw new ApiError(
      "cross_site_request",
      "Cross-site request refused: cookie-authenticated writes must come from this site.",
    );
  }
}
