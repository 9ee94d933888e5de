import { API_KEY_PREFIX, SCOPES, type Scope } from "@rubricon/contracts";
import {
  ApiError,
  authenticateApiKey,
  findSessionUser,
  grantEndsTokens,
  recordApiKeyUse,
} from "@rubricon/core";
import { errors as joseErrors, jwtVerify } from "jose";
import type { ApiRequest } from "../request/api-request";
import type { AppServices, Principal } from "../request/context";
import { clientIp } from "./client-ip";
import { readCookie, SESSION_COOKIE } from "./cookies";

export const OAUTH_MAX_LIFETIME_S = 15 * 60;
export const PLUGIN_MAX_LIFETIME_S = 7 * 24 * 60 * 60;

const encoder = new TextEncoder();

function parseScopes(claim: unknown): Scope[] {
  if (typeof claim !== "string")
    throw new ApiError("invalid_access_token", "The access token has no `scope` claim.");
  const known = new Set<string>(SCOPES);
  return claim.split(" ").filter((s): s is Scope => known.has(s));
}

/**
 * An OAuth access token for `audience` (the REST API or the MCP server). Tokens naming their grant (`gid`) stop
 * working once the user disconnects the app or a rotated refresh token is replayed.
 */
export async function verifyOAuth(
  token: string,
  services: AppServices,
  audience = `${services.env.baseUrl}/api/v1`,
): Promise<Extract<Principal, { kind: "oauth" }>> {
  const { payload } = await jwtVerify(token, encoder.encode(services.env.oauthJwtSecret), {
    algorithms: ["HS256"],
    audience,
    currentDate: services.clock.now(),
    requiredClaims: ["sub", "exp"],
  });
  const now = Math.floor(services.clock.now().getTime() / 1000);
  const issuedAt = typeof payload.iat === "number" ? payload.iat : now;
  if (payload.exp! - issuedAt > OAUTH_MAX_LIFETIME_S || payload.exp! - now > OAUTH_MAX_LIFETIME_S) {
    throw new ApiError("invalid_access_token", "Access tokens may live at most 15 minutes.");
  }
  if (typeof payload.team !== "string")
    throw new ApiError("invalid_access_token", "The access token has no `team` claim.");
  if (
    typeof payload.gid === "string" &&
    (await grantEndsTokens(services.db, payload.gid, services.clock.now()))
  )
    throw new ApiError("invalid_access_token", "The access token's grant was revoked.");
  return {
    kind: "oauth",
    userId: payload.sub!,
    teamId: payload.team,
    scopes: parseScopes(payload.scope),
    clientId: typeof payload.client_id === "string" ? payload.client_id : null,
  };
}

async function verifyPlugin(token: string, services: AppServices): Promise<Principal> {
  const { payload } = await jwtVerify(token, encoder.encode(services.env.pluginJwtSecret), {
    algorithms: ["HS256"],
    currentDate: services.clock.now(),
    requiredClaims: ["sub", "exp"],
  });
  const now = Math.floor(services.clock.now().getTime() / 1000);
  if (payload.exp! - now > PLUGIN_MAX_LIFETIME_S) {
    throw new ApiError("invalid_access_token", "Plugin tokens may live at most 7 days.");
  }
  if (payload.typ !== "plugin")
    throw new ApiError("invalid_access_token", "The token is not a plugin token.");
  return { kind: "plugin", userId: payload.sub! };
}

/** A JWT is either an OAuth access token or a plugin token; the two secrets differ, so neither replays as the other. */
async function verifyJwt(token: string, services: AppServices): Promise<Principal> {
  try {
    return await verifyOAuth(token, services);
  } catch (oauthError) {
    if (oauthError instanceof ApiError) throw oauthError;
    if (oauthError instanceof joseErrors.JWTExpired)
      throw new ApiError("invalid_access_token", "The access token has expired.");
    if (oauthError instanceof joseErrors.JWTClaimValidationFailed && oauthError.claim === "aud") {
      throw new ApiError(
        "invalid_access_token",
        `The access token's audience is not ${services.env.baseUrl}/api/v1.`,
      );
    }
    try {
      return await verifyPlugin(token, services);
    } catch (pluginError) {
      if (pluginError instanceof ApiError) throw pluginError;
      if (pluginError instanceof joseErrors.JWTExpired)
        throw new ApiError("invalid_access_token", "The token has expired.");
      throw new ApiError("invalid_access_token", "The bearer token is not a valid access or plugin token.");
    }
  }
}

/**
 * Resolves the caller in the spec's order: session cookie, API key, OAuth access token, plugin token. The first
 * carrier present decides: a bad one is a 401, never a fall-through to the next.
 */
export async function resolvePrincipal(
  req: ApiRequest,
  services: AppServices,
  /** The caller's address when already known (the exchange reads it once per request). */
  ip: string | null = clientIp(req.headers, services.env.trustedProxyCount),
): Promise<Principal | null> {
  const sessionToken = readCookie(req.headers.get("cookie"), SESSION_COOKIE);
  if (sessionToken) {
    const found = await findSessionUser(
      { db: services.db, clock: services.clock, baseUrl: services.env.baseUrl },
      sessionToken,
    );
    if (!found) throw new ApiError("invalid_session", "Your session has expired; sign in again.");
    return {
      kind: "session",
      userId: found.user.id,
      sessionId: found.sessionId,
    };
  }
  const authorization = req.headers.get("authorization");
  if (!authorization) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match)
    throw new ApiError(
      "authentication_required",
      "Malformed Authorization header; expected `Bearer <token>`.",
    );
  const token = match[1]!;
  if (token.startsWith(API_KEY_PREFIX)) {
    const now = services.clock.now();
    const key = await authenticateApiKey(services.db, token, now);
    const recorded = recordApiKeyUse(services.db, key, ip, now);
    if (recorded) await recorded;
    return {
      kind: "api_key",
      userId: key.userId,
      teamId: key.teamId,
      keyId: key.id,
      scopes: key.scopes as Scope[],
    };
  }
  if (token.split(".").length === 3) return verifyJwt(token, services);
  throw new ApiError("invalid_api_key", "Invalid API key provided; keys start with `ak_live_`.");
}
