import { RatingSubmission, ShareStartInput } from "@rubricon/contracts";
import { ApiError, type ShareViewer, shareView, startPublicRater, submitShareRating } from "@rubricon/core";
import type { AppServices } from "../trpc/context";
import { httpOnlyCookie, readCookie } from "./cookies";
import { assertSameOrigin } from "./csrf";
import { toApiError, toErrorEnvelope } from "./error-envelope";
import { parseJsonBody } from "./json-body";
import { resolvePrincipal } from "./principal";
import { uuidv7 } from "./request-id";

export const SHARE_PREFIX = "/api/share";
const RATER_COOKIE = "rubricon_rater";
const RATER_COOKIE_MAX_AGE_S = 90 * 24 * 60 * 60;

/**
 * The public share link's API, used by the `/share/{token}` page: `GET /api/share/{token}` (what to show),
 * `POST .../start` (become a public rater: password and details checked here) and `POST .../ratings`. A public
 * rater is known by a cookie scoped to its link's path, so it is sent to nothing else.
 */
export function createShareHandler(services: AppServices) {
  const secure = services.env.baseUrl.startsWith("https://");
  const core = (requestId: string) => ({
    db: services.db,
    clock: services.clock,
    baseUrl: services.env.baseUrl,
    request: { id: requestId, idempotencyKey: null },
  });

  return async function handleShare(req: Request): Promise<Response> {
    const requestId = uuidv7();
    const headers = new Headers({
      "X-Request-Id": requestId,
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
    });
    const answer = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers });
    try {
      const rest = new URL(req.url).pathname.slice(SHARE_PREFIX.length).replace(/\/+$/, "");
      const match = /^\/([A-Za-z0-9_-]{1,100})(\/start|\/ratings)?$/.exec(rest);
      if (!match)
        throw new ApiError(
          "route_not_found",
          `Unrecognized request URL (${req.method} ${SHARE_PREFIX}${rest}).`,
        );
      const token = match[1]!;
      const action = match[2] ?? "";
      const allowed = action === "" ? "GET" : "POST";
      if (req.method !== allowed) {
        headers.set("Allow", allowed);
        throw new ApiError("method_not_allowed", `${req.method} is not allowed here; use ${allowed}.`);
      }
      const principal = await resolvePrincipal(req, services);
      const viewer: ShareViewer = {
        userId: principal?.kind === "session" ? principal.userId : null,
        raterToken: readCookie(req.headers.get("cookie"), RATER_COOKIE),
      };
      if (
        req.method === "POST" &&
        (req.headers.get("origin") || req.headers.get("referer") || viewer.userId)
      ) {
        assertSameOrigin(req, services.env.baseUrl);
      }
      if (action === "") return answer(200, await shareView(core(requestId), token, viewer));
      if (action === "/start") {
        const input = await parseJsonBody(req, ShareStartInput);
        const started = await startPublicRater(core(requestId), token, viewer, input);
        headers.append(
          "Set-Cookie",
          httpOnlyCookie(RATER_COOKIE, started.token, {
            secure,
            maxAgeSeconds: RATER_COOKIE_MAX_AGE_S,
            path: `${SHARE_PREFIX}/${token}`,
          }),
        );
        return answer(201, { object: "public_rater", id: started.rater.id, name: started.rater.name });
      }
      const input = await parseJsonBody(req, RatingSubmission);
      return answer(201, await submitShareRating(core(requestId), token, viewer, input));
    } catch (err) {
      const { error, unexpected } = toApiError(err);
      if (unexpected) console.error(`[${requestId}] ${req.method} ${req.url} failed:`, err);
      return new Response(JSON.stringify(toErrorEnvelope(error, requestId)), {
        status: error.status,
        headers,
      });
    }
  };
}
