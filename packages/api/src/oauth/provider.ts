import { createPrivateKey, createSecretKey, hkdfSync } from "node:crypto";
import { SCOPES } from "@rubricon/contracts";
import { grantTeam } from "@rubricon/core";
import type { Db } from "@rubricon/db";
import Provider, {
  type Configuration,
  errors,
  interactionPolicy,
  type KoaContextWithOIDC,
} from "oidc-provider";
import type { AppServices } from "../request/services";
import { postgresAdapter } from "./adapter";

export const OAUTH_PREFIX = "/api/oauth";
/** The dashboard page that names the app, its redirect host and scopes, and asks for the team. */
export const CONSENT_PAGE = "/oauth/consent";
export const ACCESS_TOKEN_TTL_S = 15 * 60;
const REFRESH_TOKEN_TTL_S = 30 * 24 * 60 * 60;
const GRANT_TTL_S = 365 * 24 * 60 * 60;

/** The two protected resources: tokens are bound to exactly one of them by `aud` (RFC 8707). */
export function oauthResources(baseUrl: string) {
  return { api: `${baseUrl}/api/v1`, mcp: `${baseUrl}/mcp` } as const;
}

/** Scopes an app may ask for: every API scope. */
export const OAUTH_SCOPES: readonly string[] = SCOPES;

function derive(secret: string, label: string, length: number): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "rubricon-oauth", label, length));
}

/**
 * The provider's own signing key (only its metadata and ID tokens would use it, and no `openid` scope is
 * offered): an Ed25519 key derived from `OAUTH_JWT_SECRET`, the same on every instance.
 */
function signingJwks(secret: string) {
  const seed = derive(secret, "signing-key", 32);
  const der = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]);
  const jwk = createPrivateKey({ key: der, format: "der", type: "pkcs8" }).export({ format: "jwk" });
  return { keys: [{ ...jwk, alg: "EdDSA", use: "sig" }] };
}

async function teamOfGrant(db: Db, grantId: string | undefined): Promise<string> {
  if (!grantId) throw new errors.InvalidGrant("the grant is unknown");
  const row = await grantTeam(db, grantId);
  if (!row || row.revokedAt) throw new errors.InvalidGrant("the grant was revoked");
  return row.teamId;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
const REDIRECT_LISTS = ["redirect_uris", "post_logout_redirect_uris"] as const;

/**
 * The OAuth 2.1 authorization server (oidc-provider): dynamic registration, authorization code with PKCE S256,
 * resource indicators choosing the audience, HS256 JWT access tokens of at most 15 minutes, rotating refresh
 * tokens whose reuse revokes the grant, and revocation. Its records live in Postgres.
 */
export function createOAuthProvider(services: AppServices): Provider {
  const { db, env, clock } = services;
  const resources = oauthResources(env.baseUrl);
  const known = new Set<string>(Object.values(resources));
  const accessTokenKey = createSecretKey(Buffer.from(env.oauthJwtSecret, "utf8"));

  // Every authorization is confirmed on the dashboard by its signed-in user: the provider's own memory of an
  // earlier sign-in never stands in for it.
  const policy = interactionPolicy.base();
  policy
    .get("login")!
    .checks.add(
      new interactionPolicy.Check(
        "dashboard_confirmation",
        "the signed-in user confirms every authorization",
        "login_required",
        (ctx) =>
          ctx.oidc.result?.login
            ? interactionPolicy.Check.NO_NEED_TO_PROMPT
            : interactionPolicy.Check.REQUEST_PROMPT,
      ),
      0,
    );

  const configuration: Configuration = {
    adapter: postgresAdapter(db, env.encryptionKey, () => clock.now()),
    jwks: signingJwks(env.oauthJwtSecret) as Configuration["jwks"],
    cookies: { keys: [derive(env.oauthJwtSecret, "cookie-key", 32).toString("base64url")] },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    scopes: ["offline_access"],
    claims: {},
    responseTypes: ["code"],
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
      id_token_signed_response_alg: "EdDSA",
    },
    // OAuth 2.1 §2.3.1: a redirect URI over plain http is allowed only back to the user's own machine (a native
    // app's loopback listener); anywhere else a code in transit could be read or altered. RFC 7591 §3.2.2 names
    // the error. Where the user lands after signing out is held to the same rule, or sign-out would be an open
    // redirect over plain http.
    extraClientMetadata: {
      properties: [...REDIRECT_LISTS],
      validator: (_ctx, key, value) => {
        if (!(REDIRECT_LISTS as readonly string[]).includes(key) || !Array.isArray(value)) return;
        for (const uri of value as unknown[]) {
          const parsed = typeof uri === "string" ? URL.parse(uri) : null;
          if (parsed?.protocol === "http:" && !LOOPBACK_HOSTS.has(parsed.hostname)) {
            // The description's first word picks the error: `invalid_redirect_uri` for redirect_uris, else
            // `invalid_client_metadata` (RFC 7591 §3.2.2).
            throw new errors.InvalidClientMetadata(
              `${key} may use http only for loopback addresses (127.0.0.1, [::1], localhost); use https for ${parsed.host}`,
            );
          }
        }
      },
    },
    routes: {
      authorization: `${OAUTH_PREFIX}/authorize`,
      token: `${OAUTH_PREFIX}/token`,
      registration: `${OAUTH_PREFIX}/register`,
      revocation: `${OAUTH_PREFIX}/revoke`,
      jwks: `${OAUTH_PREFIX}/jwks`,
      end_session: `${OAUTH_PREFIX}/logout`,
      userinfo: `${OAUTH_PREFIX}/userinfo`,
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      // An app revokes only its own tokens.
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf ?? resources.api,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (!known.has(indicator)) throw new errors.InvalidTarget();
          return {
            scope: OAUTH_SCOPES.join(" "),
            audience: indicator,
            accessTokenTTL: ACCESS_TOKEN_TTL_S,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "HS256", key: accessTokenKey } },
          };
        },
      },
    },
    formats: {
      customizers: {
        // The claims the API's verifier reads: the team the user chose at consent, and the grant to check revocation.
        jwt: async (_ctx, token, jwt) => {
          const grantId = (token as { grantId?: string }).grantId;
          jwt.payload.team = await teamOfGrant(db, grantId);
          jwt.payload.gid = grantId;
        },
      },
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: true,
    expiresWithSession: async () => false,
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Grant: GRANT_TTL_S,
      Interaction: 10 * 60,
      Session: 10 * 60,
      IdToken: 10 * 60,
      ClientCredentials: 10 * 60,
    },
    interactions: {
      url: async (_ctx, interaction) => `${CONSENT_PAGE}/${interaction.uid}`,
      policy,
    },
    // Browser apps call the token and revocation endpoints from their own origin: the one their redirect URIs name.
    clientBasedCORS: (_ctx, origin, client) =>
      (client.redirectUris ?? []).some((uri) => {
        try {
          return new URL(uri).origin === origin;
        } catch {
          return false;
        }
      }),
    renderError: async (ctx, out) => {
      ctx.type = "html";
      ctx.body = `<!doctype html><meta charset="utf-8"><title>Authorization failed</title><h1>Authorization failed</h1><p>${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ""))}</p>`;
    },
  };

  const provider = new Provider(env.baseUrl, configuration);
  // Requests reach it with the public origin rewritten in (see the entry): trust the forwarded protocol.
  provider.proxy = true;
  return provider;
}
