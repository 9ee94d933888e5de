import type { EntryPoint, Exchange } from "../request/exchange";
import type { Reply } from "../request/reply";
import { admitRestRequest } from "../trpc/admission";
import { settleApiVersion } from "../versions";
import { jsonReply } from "./reply";
import { API_PREFIX, matchRoute, readInput, restTarget } from "./rest-parse";
import { replyWith } from "./rest-reply";
import { runProcedure, streamEvents } from "./rest-run";
import type { RouteTable } from "./route-table";

interface RestDeps {
  routes: RouteTable;
  openApiDocument: () => unknown;
}

/**
 * The REST surface: every `/api/v1` request, in the stages below and in this order, from its request line to the
 * procedure's answer. The pipeline (`pipeline.ts`) has already given the request its id, its context and its error
 * envelope; the procedure's own middleware (`trpc/init.ts`) finishes the checks that need the parsed input.
 */
export function createRestEntry(deps: RestDeps): EntryPoint {
  return {
    prefix: API_PREFIX,
    async handle(ex: Exchange): Promise<Reply> {
      // Parse: the request line names the OpenAPI document or a route (404, 405, an OPTIONS answered by Allow).
      const target = restTarget(ex);
      if (target.path === "/openapi.json" && (target.method === "GET" || target.method === "HEAD")) {
        return jsonReply(ex, 200, deps.openApiDocument(), { "Cache-Control": "public, max-age=300" });
      }
      const request = matchRoute(deps.routes, ex, target);
      if (!request) return jsonReply(ex, 204, null);

      // Version: the one the request names, or its team is pinned to; it shapes the input and the answer.
      const principal = await ex.principal();
      const version = await settleApiVersion(ex.ctx, ex.req.headers.get("service-version"), principal);

      // Admit: credentials, session and scope are settled before the body is read, so an anonymous or unscoped
      // caller is told 401 or 403, not what is wrong with a body it may not send.
      await admitRestRequest(ex.ctx, ex.req, principal, request.route);
      const input = await readInput(request, version);

      // Run, then reply: an event stream answers as it runs; anything else once its procedure has answered.
      if (request.route.stream) return streamEvents(request, principal, input.input);
      return replyWith(request, await runProcedure(request, principal, input));
    },
  };
}
