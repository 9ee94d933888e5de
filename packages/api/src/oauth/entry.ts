import { ApiError, markGrantRevoked } from "@rubricon/core";
import type Provider from "oidc-provider";
import type { KoaContextWithOIDC } from "oidc-provider";
import { jsonReply } from "../http/reply";
import { enforceRouteLimit } from "../limits/route-limit";
import type { EntryPoint, Exchange } from "../request/exchange";
import type { Reply } from "../request/reply";
import type { AppServices } from "../request/services";
import { handleConsent } from "./consent";
import { createOAuthProvider, OAUTH_PREFIX } from "./provider";

/** Dynamic registration creates rows for anyone who asks: a few an hour per address is plenty for real apps. */
const REGISTRATION_LIMIT = { key: "ip" as const, limit: 20, windowSec: 60 * 60, bucket: "oauth-register" };
const INTERACTION = /^\/interaction\/([A-Za-z0-9_-]{1,100})$/;

/** An OAuth error body (RFC 6749 §5.2), which OAuth clients read, rather than the API's envelope. */
function oauthError(ex: Exchange, status: number, error: string, description: string): Reply {
  return jsonReply(ex, status, { error, error_description: description }, { "Cache-Control": "no-store" });
}

/**
 * `/api/oauth/*`: the authorization server's endpoints (authorize, token, register, revoke), answered by
 * oidc-provider on the node request, and the consent page's API. The pipeline has already assigned the request
 * id; limits run before the provider sees the request.
 */
export function createOAuthEntry(services: AppServices): EntryPoint & { provider: Provider } {
  const provider = createOAuthProvider(services);
  const callback = provider.callback();
  const base = new URL(services.env.baseUrl);

  // Revoking a refresh token at /revoke ends future refreshes only; a replayed rotated token ends the grant's
  // access tokens too.
  provider.on("grant.revoked", (ctx: KoaContextWithOIDC, grantId: string) => {
    const reason = ctx.oidc?.route === "revocation" ? "client" : "reuse";
    void markGrantRevoked(services.db, grantId, reason, services.clock.now()).catch((err: unknown) =>
      console.error(`[oauth] could not record the revocation of grant ${grantId}:`, err),
    );
  });
  provider.on("server_error", (_ctx: KoaContextWithOIDC, err: Error) => console.error("[oauth]", err));

  return {
    prefix: OAUTH_PREFIX,
    provider,
    async handle(ex) {
      const rest = ex.url.pathname.slice(OAUTH_PREFIX.length);
      const consent = INTERACTION.exec(rest);
      if (consent) {
        ex.headers["Cache-Control"] = "no-store";
        return handleConsent(ex, provider, consent[1]!);
      }
      if (rest === "/register" && ex.req.method === "POST") {
        try {
          await enforceRouteLimit(ex.ctx, REGISTRATION_LIMIT, "POST /api/oauth/register");
        } catch (err) {
          if (err instanceof ApiError && err.code === "rate_limit_exceeded") {
            Object.assign(ex.headers, err.headers);
            return oauthError(ex, 429, "rate_limit_exceeded", err.message);
          }
          throw err;
        }
      }
      const node = ex.req.node;
      if (!node) {
        return oauthError(
          ex,
          503,
          "temporarily_unavailable",
          "The authorization server is served by the production server (`pnpm start`).",
        );
      }
      for (const [name, value] of Object.entries(ex.headers)) node.res.setHeader(name, value);
      // The provider builds its URLs from the request: make it the public origin whatever Host the client sent.
      node.req.headers.host = base.host;
      node.req.headers["x-forwarded-proto"] = base.protocol.slice(0, -1);
      delete node.req.headers["x-forwarded-host"];
      await callback(node.req, node.res);
      return { status: node.res.statusCode, headers: {}, body: null, written: true };
    },
  };
}
