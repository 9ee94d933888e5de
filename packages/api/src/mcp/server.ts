import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ApiError } from "@rubricon/core";
import { toApiError, toErrorEnvelope } from "../http/error-envelope";
import { DEFAULT_BODY_LIMIT } from "../http/pipeline";
import { verifyOAuth } from "../http/principal";
import { jsonReply } from "../http/reply";
import type { EntryPoint, Exchange } from "../request/exchange";
import type { Reply } from "../request/reply";
import type { AppServices } from "../request/services";
import { appRouter } from "../routers/index";
import { admitMcpRequest } from "../trpc/admission";
import { MCP_PROMPTS } from "./prompts";
import { RESOURCE_TOOLS } from "./resource-tools";
import { MCP_TOOLS } from "./tools";

export const MCP_PREFIX = "/mcp";

function registerTools(server: McpServer, ex: Exchange): void {
  const caller = appRouter.createCaller(ex.ctx);
  for (const t of [...MCP_TOOLS, ...RESOURCE_TOOLS]) {
    server.registerTool(
      t.name,
      {
        title: t.title,
        description: t.description,
        inputSchema: t.input,
        annotations: { readOnlyHint: t.readOnly },
      },
      async (input: unknown) => {
        try {
          const output = await t.call(caller, input);
          return {
            content: [{ type: "text" as const, text: JSON.stringify(output) }],
            structuredContent: output as Record<string, unknown>,
          };
        } catch (err) {
          // The REST route's error, envelope and all: a missing scope is `missing_required_scope` here too.
          const { error, unexpected } = toApiError(err, input);
          if (unexpected) console.error(`[${ex.requestId}] MCP tool ${t.name} failed:`, err);
          return {
            isError: true,
            content: [
              {
                type: "text" as const,
                text: JSON.stringify(toErrorEnvelope(error, ex.requestId, ex.ctx.services.env.baseUrl)),
              },
            ],
          };
        }
      },
    );
  }
}

function registerPrompts(server: McpServer): void {
  for (const p of MCP_PROMPTS) {
    server.registerPrompt(
      p.name,
      { title: p.title, description: p.description, argsSchema: p.args },
      (args: Record<string, string | undefined>) => ({
        messages: [{ role: "user" as const, content: { type: "text" as const, text: p.text(args) } }],
      }),
    );
  }
}

/**
 * The MCP server (Streamable HTTP, stateless: each POST carries its own JSON-RPC exchange). Only OAuth access
 * tokens issued for `<BASE_URL>/mcp` are accepted; without one the answer is a 401 whose `WWW-Authenticate`
 * names the resource metadata, from which MCP clients find the authorization server.
 */
export function createMcpEntry(services: AppServices): EntryPoint {
  const base = services.env.baseUrl;
  const audience = `${base}${MCP_PREFIX}`;
  const metadata = `${base}/.well-known/oauth-protected-resource${MCP_PREFIX}`;

  const unauthorized = (ex: Exchange, err: ApiError, tokenSent: boolean): Reply => {
    const params = [`resource_metadata="${metadata}"`];
    if (tokenSent)
      params.push(`error="invalid_token"`, `error_description="${err.message.replace(/"/g, "'")}"`);
    ex.headers["WWW-Authenticate"] = `Bearer ${params.join(", ")}`;
    const { status, body } = ex.failure(err);
    return jsonReply(ex, status, body);
  };

  return {
    prefix: MCP_PREFIX,
    async handle(ex) {
      if (ex.url.pathname !== MCP_PREFIX)
        throw new ApiError(
          "route_not_found",
          `Unrecognized request URL (${ex.req.method} ${ex.url.pathname}).`,
        );
      ex.headers["Cache-Control"] = "no-store";
      const match = /^Bearer\s+(\S+)\s*$/i.exec(ex.req.headers.get("authorization") ?? "");
      if (!match)
        return unauthorized(
          ex,
          new ApiError("authentication_required", `Send an OAuth access token issued for ${audience}.`),
          false,
        );
      let principal: Awaited<ReturnType<typeof verifyOAuth>>;
      try {
        principal = await verifyOAuth(match[1]!, services, audience);
      } catch (err) {
        const apiError =
          err instanceof ApiError
            ? err
            : new ApiError("invalid_access_token", `The token is not an OAuth access token for ${audience}.`);
        return unauthorized(ex, apiError, true);
      }
      ex.ctx.principal = principal;
      if (ex.req.method !== "POST") {
        ex.headers.Allow = "POST";
        throw new ApiError(
          "method_not_allowed",
          `${ex.req.method} is not allowed here; this MCP server is stateless and answers POST only.`,
        );
      }
      await admitMcpRequest(ex.ctx, principal);
      const body = await ex.req.readBody(DEFAULT_BODY_LIMIT);
      const headers = new Headers();
      for (const [name, value] of ex.req.headers.entries()) headers.append(name, value);
      const request = new Request(ex.url, { method: "POST", headers, body: Buffer.from(body) });

      const server = new McpServer({ name: "rubricon", version: "1.0.0" });
      registerTools(server, ex);
      registerPrompts(server);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      try {
        const response = await transport.handleRequest(request);
        const out: Record<string, string> = { ...ex.headers };
        response.headers.forEach((value, name) => {
          out[name] = value;
        });
        const bytes = new Uint8Array(await response.arrayBuffer());
        return { status: response.status, headers: out, body: bytes.length > 0 ? bytes : null };
      } finally {
        await server.close();
      }
    },
  };
}
