import { ApiError } from "@rubricon/core";
import { jsonReply } from "../http/reply";
import type { EntryPoint } from "../request/exchange";
import type { AppServices } from "../request/services";
import { OAUTH_PREFIX, OAUTH_SCOPES, oauthResources } from "./provider";

export const WELL_KNOWN_PREFIX = "/.well-known";

/**
 * Discovery: the authorization server's metadata (RFC 8414) and each protected resource's (RFC 9728):
 * `/.well-known/oauth-protected-resource/api/v1` and `/.../mcp`; the bare path describes the REST API.
 */
export function createWellKnownEntry(services: AppServices): EntryPoint {
  const base = services.env.baseUrl;
  const resources = oauthResources(base);
  const authorizationServer = {
    issuer: base,
    authorization_endpoint: `${base}${OAUTH_PREFIX}/authorize`,
    token_endpoint: `${base}${OAUTH_PREFIX}/token`,
    registration_endpoint: `${base}${OAUTH_PREFIX}/register`,
    revocation_endpoint: `${base}${OAUTH_PREFIX}/revoke`,
    scopes_supported: OAUTH_SCOPES,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
    revocation_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${base}/api/v1/openapi.json`,
  };
  const protectedResource = (resource: string, name: string) => ({
    resource,
    resource_name: name,
    authorization_servers: [base],
    scopes_supported: OAUTH_SCOPES,
    bearer_methods_supported: ["header"],
  });
  const documents: Record<string, unknown> = {
    "/oauth-authorization-server": authorizationServer,
    "/oauth-protected-resource": protectedResource(resources.api, "Rubricon REST API"),
    "/oauth-protected-resource/api/v1": protectedResource(resources.api, "Rubricon REST API"),
    "/oauth-protected-resource/mcp": protectedResource(resources.mcp, "Rubricon MCP server"),
  };

  return {
    prefix: WELL_KNOWN_PREFIX,
    async handle(ex) {
      const document = documents[ex.url.pathname.slice(WELL_KNOWN_PREFIX.length)];
      if (!document)
        throw new ApiError(
          "route_not_found",
          `Unrecognized request URL (${ex.req.method} ${ex.url.pathname}).`,
        );
      if (ex.req.method !== "GET" && ex.req.method !== "HEAD") {
        ex.headers.Allow = "GET";
        throw new ApiError("method_not_allowed", `${ex.req.method} is not allowed here; use GET.`);
      }
      // Public metadata: any origin may read it (browser-based MCP clients discover the server this way).
      return jsonReply(ex, 200, document, {
        "Access-Control-Allow-Origin": "*",
        "Cache-Control": "public, max-age=3600",
      });
    },
  };
}
