import { RatingSubmission, ShareStartInput } from "@rubricon/contracts";
import {
  ApiError,
  type ShareViewer,
  shareView,
  signedFileUrl,
  startPublicRater,
  submitShareRating,
} from "@rubricon/core";
import { AttemptThrottle } from "../limits/attempts";
import { type AppServices, limitPolicy } from "../request/context";
import { assertSameOrigin } from "../request/csrf";
import type { EntryPoint, Exchange } from "../request/exchange";
import { httpOnlyCookie, readCookie } from "./cookies";
import { parseJsonBody } from "./json-body";
import { jsonReply, redirectReply } from "./reply";

export const SHARE_PREFIX = "/api/share";
const SHARE_FILE_TEMPLATE = `${SHARE_PREFIX}/{token}/files/{fileId}`;
const RATER_COOKIE = "rubricon_rater";
const RATER_COOKIE_MAX_AGE_S = 90 * 24 * 60 * 60;
/** A rater's name and email, or a password. */
const START_BODY_LIMIT = 16 * 1024;
/** One rating, with its open-text answers and justification. */
const RATING_BODY_LIMIT = 256 * 1024;

/**
 * The public share link's API, used by the `/share/{token}` page: `GET /api/share/{token}` (what to show),
 * `POST .../start` (become a public rater: password and details checked here) and `POST .../ratings`. A public
 * rater is known by a cookie scoped to its link's path, so it is sent to nothing else.
 */
export function createShareEntry(services: AppServices): EntryPoint {
  const secure = services.env.baseUrl.startsWith("https://");
  const attempts = new AttemptThrottle(services);
  const core = (ex: Exchange) => ({
    db: services.db,
    clock: services.clock,
    baseUrl: services.env.baseUrl,
    request: { id: ex.requestId, idempotencyKey: null },
    limits: limitPolicy(ex.ctx),
  });

  /**
   * `GET /api/share/{token}/files/{fileId}`: a rater of the link sees the files of its comparisons, and only
   * those, through a 302 to a short-lived signed URL.
   */
  const shareFile = async (ex: Exchange, token: string, fileId: string) => {
    if (ex.req.method !== "GET" && ex.req.method !== "HEAD") {
      ex.headers.Allow = "GET";
      throw new ApiError("method_not_allowed", `${ex.req.method} is not allowed here; use GET.`);
    }
    const principal = await ex.principal().catch(() => null);
    const view = await shareView(core(ex), token, {
      userId: principal?.kind === "session" ? principal.userId : null,
      raterToken: readCookie(ex.req.headers.get("cookie"), RATER_COOKIE),
    });
    const shown = view.comparisons.some(({ stimulus: s }) =>
      s.kind === "single" ? s.fileId === fileId : s.sideA.fileId === fileId || s.sideB.fileId === fileId,
    );
    const url = shown
      ? await signedFileUrl(services.db, services.storage, fileId, { clock: services.clock })
      : null;
    if (!url) throw ApiError.notFound("file_not_found", `No such file: ${fileId}.`);
    return redirectReply(ex, url);
  };

  return {
    prefix: SHARE_PREFIX,
    async handle(ex) {
      ex.headers["Cache-Control"] = "no-store";
      const { req } = ex;
      const rest = ex.url.pathname.slice(SHARE_PREFIX.length).replace(/\/+$/, "");
      const file = /^\/([A-Za-z0-9_-]{1,100})\/files\/([A-Za-z0-9_-]{1,100})$/.exec(rest);
      // Log lines name the route, never the link's token: it lets anyone who has it rate.
      if (file) {
        ex.ctx.route = `${req.method} ${SHARE_PREFIX}/{token}/files/{fileId}`;
        ex.ctx.template = SHARE_FILE_TEMPLATE;
        return shareFile(ex, file[1]!, file[2]!);
      }
      const match = /^\/([A-Za-z0-9_-]{1,100})(\/start|\/ratings)?$/.exec(rest);
      if (!match)
        throw new ApiError(
          "route_not_found",
          `Unrecognized request URL (${req.method} ${SHARE_PREFIX}${rest}).`,
        );
      const token = match[1]!;
      const action = match[2] ?? "";
      ex.ctx.route = `${req.method} ${SHARE_PREFIX}/{token}${action}`;
      const allowed = action === "" ? "GET" : "POST";
      if (req.method !== allowed) {
        ex.headers.Allow = allowed;
        throw new ApiError("method_not_allowed", `${req.method} is not allowed here; use ${allowed}.`);
      }
      // A public link works signed out: a stale or malformed session cookie counts as no session.
      const principal = await ex.principal().catch(() => null);
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
      if (action === "") return jsonReply(ex, 200, await shareView(core(ex), token, viewer));
      if (action === "/start") {
        const input = await parseJsonBody(ex, ShareStartInput, START_BODY_LIMIT);
        const address = ex.ctx.clientIp;
        const perAddress = `${token}|${address ?? "unknown"}`;
        await attempts.consume("share-start", perAddress, null, ex.requestId);
        if (input.password !== undefined)
          await attempts.check("share-password", token, address, ex.requestId);
        const started = await startPublicRater(core(ex), token, viewer, input).catch(async (err) => {
          if (err instanceof ApiError && err.code === "share_password_incorrect")
            await attempts.record("share-password", token, address, ex.requestId);
          throw err;
        });
        ex.cookies.push(
          httpOnlyCookie(RATER_COOKIE, started.token, {
            secure,
            maxAgeSeconds: RATER_COOKIE_MAX_AGE_S,
            path: `${SHARE_PREFIX}/${token}`,
          }),
        );
        // A browser that already started carries on as the same rater: 200, not a new one.
        return jsonReply(ex, started.reused ? 200 : 201, {
          object: "public_rater",
          id: started.rater.id,
          name: started.rater.name,
        });
      }
      const input = await parseJsonBody(ex, RatingSubmission, RATING_BODY_LIMIT);
      const perAddress = `${token}|${ex.ctx.clientIp ?? "unknown"}`;
      await attempts.consume("share-rating", perAddress, null, ex.requestId);
      return jsonReply(ex, 201, await submitShareRating(core(ex), token, viewer, input));
    },
  };
}
