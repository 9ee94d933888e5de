import type { Reply } from "../request/reply";
import type { RedirectTarget } from "../trpc/redirect";
import { versionedBody } from "../versions";
import {
  jsonReply,
  noneMatchHits,
  notModifiedReply,
  redirectReply,
  revalidated,
  serializedOnce,
} from "./reply";
import type { RestRequest } from "./rest-parse";
import type { Outcome } from "./rest-run";

/**
 * A procedure's outcome as the response: a redirect, a raw body (a CSV export), an error envelope, or JSON in the
 * caller's API version, tagged for `If-None-Match` when the route answers one object again and again.
 */
export function replyWith({ ex, route }: RestRequest, result: Outcome): Reply {
  if (result.replayed) {
    return jsonReply(ex, result.status, versionedBody(ex.ctx, result.body), {
      "Idempotent-Replayed": "true",
    });
  }
  if (result.status === 302) return redirectReply(ex, (result.body as RedirectTarget).location);
  const raw = ex.ctx.response.raw;
  if (raw && result.status < 300 && typeof result.body === "string") {
    return {
      status: result.status,
      headers: { ...ex.headers, ...raw.headers, "Content-Type": raw.contentType },
      body: result.body,
    };
  }
  if (result.status >= 300) return jsonReply(ex, result.status, result.body);
  const body = versionedBody(ex.ctx, result.body);
  // A version that reshapes the body answers a new object, serialized as usual.
  const reused = route.meta.reusedBody && body === result.body && typeof body === "object" && body !== null;
  if (!reused) return jsonReply(ex, result.status, body);
  // A body answered again unchanged is tagged: a client that kept it asks with If-None-Match and gets a 304
  // without the megabytes. Only a route's own answer is tagged: access was checked before it was taken.
  const { bytes, etag } = serializedOnce(body);
  if (result.status === 200 && noneMatchHits(ex.req.headers.get("if-none-match"), etag)) {
    return notModifiedReply(ex, etag);
  }
  return jsonReply(ex, result.status, body, revalidated(etag), bytes);
}
