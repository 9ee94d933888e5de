import { API_VERSION } from "@rubricon/contracts";
import { ApiError, withLimitPolicy } from "@rubricon/core";
import type { AnyRouter } from "@trpc/server";
import { meterRequest } from "../limits/requests-per-minute";
import type { AppServices, Principal, RequestContext } from "../trpc/context";
import { assertFeatureEnabled } from "../trpc/gates";
import type { ApiRequest, ApiResponse } from "./api-message";
import { clientIp } from "./client-ip";
import { assertSameOrigin } from "./csrf";
import { toApiError, toErrorEnvelope } from "./error-envelope";
import {
  claimIdempotencyKey,
  requestFingerprint,
  settleIdempotencyKey,
  validateIdempotencyKey,
} from "./idempotency";
import { resolvePrincipal } from "./principal";
import { uuidv7 } from "./request-id";
import type { Route, RouteTable } from "./route-table";

export const API_PREFIX = "/api/v1";
const MAX_BODY_BYTES = 1024 * 1024;
const BODY_METHODS = new Set(["POST", "PATCH", "PUT"]);

interface HandlerDeps {
  services: AppServices;
  routes: RouteTable;
  // biome-ignore lint/suspicious/noExplicitAny: the caller is navigated by procedure path at run time
  createCaller: (ctx: RequestContext) => any;
  openApiDocument: () => unknown;
}

function json(status: number, body: unknown, headers: Record<string, string>): ApiResponse {
  if (status === 204) return { status, headers, body: null };
  return {
    status,
    headers: { ...headers, "Content-Type": "application/json; charset=utf-8" },
    body: JSON.stringify(body),
  };
}

async function readJsonBody(req: ApiRequest): Promise<Record<string, unknown>> {
  const length = Number(req.headers.get("content-length") ?? "0");
  if (length > MAX_BODY_BYTES)
    throw new ApiError("request_too_large", "The request body is larger than 1 MB.");
  const text = await req.text();
  if (text.length > MAX_BODY_BYTES)
    throw new ApiError("request_too_large", "The request body is larger than 1 MB.");
  if (text.trim() === "") return {};
  const type = req.headers.get("content-type") ?? "";
  if (type && !/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
    throw new ApiError(
      "unsupported_media_type",
      "Send the request body as JSON with `Content-Type: application/json`.",
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_json", "The request body is not valid JSON.");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ApiError("invalid_json", "The request body must be a JSON object.");
  }
  return parsed as Record<string, unknown>;
}

function queryInput(url: URL): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    out[key] = values.length === 1 ? values[0] : values;
  }
  return out;
}

/** Route meta `deprecation` is the whole mechanism: headers before the sunset, 410 from it on. */
function applyDeprecation(
  route: Route,
  params: Record<string, string>,
  now: Date,
  baseUrl: string,
  headers: Record<string, string>,
): void {
  const d = route.meta.deprecation;
  if (!d) return;
  const successor = d.successor.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(params[name] ?? name),
  );
  headers.Deprecation = "true";
  headers.Sunset = d.sunset.toUTCString();
  headers.Link = `<${baseUrl}${API_PREFIX}${successor}>; rel="successor-version"`;
  if (now.getTime() >= d.sunset.getTime()) {
    throw new ApiError(
      "route_sunset",
      `This route was removed on ${d.sunset.toUTCString()}; use ${API_PREFIX}${successor}.`,
    );
  }
}

function idempotencyScope(principal: Principal): string {
  return principal.kind === "api_key" || principal.kind === "oauth"
    ? `team:${principal.teamId}`
    : `user:${principal.userId}`;
}

/** The REST surface: every `/api/v1` request, start to finish, including every error it can meet. */
export function createRestHandler(deps: HandlerDeps) {
  const { services } = deps;

  return async function handleRest(req: ApiRequest): Promise<ApiResponse> {
    const requestId = uuidv7(services.clock.now().getTime());
    const headers: Record<string, string> = {
      "X-Request-Id": requestId,
      "Service-Version": API_VERSION,
    };
    const ctx: RequestContext = {
      services,
      principal: null,
      clientIp: clientIp(req.headers, services.env.trustedProxyCount),
      requestId,
      idempotencyKey: null,
      response: { headers },
    };
    try {
      const url = new URL(req.url);
      const path = url.pathname.slice(API_PREFIX.length).replace(/\/+$/, "") || "/";
      const method = req.method.toUpperCase();

      if (path === "/openapi.json" && (method === "GET" || method === "HEAD")) {
        return json(200, deps.openApiDocument(), {
          ...headers,
          "Cache-Control": "public, max-age=300",
        });
      }

      const matches = deps.routes.match(path);
      if (matches.length === 0)
        throw new ApiError("route_not_found", `Unrecognized request URL (${method} ${API_PREFIX}${path}).`);
      const effectiveMethod = method === "HEAD" ? "GET" : method;
      const match = matches.find((m) => m.route.method === effectiveMethod);
      if (!match) {
        const allow = [...new Set(matches.map((m) => m.route.method))];
        if (allow.includes("GET")) allow.push("HEAD");
        headers.Allow = allow.join(", ");
        if (method === "OPTIONS") return { status: 204, headers, body: null };
        throw new ApiError(
          "method_not_allowed",
          `${method} is not allowed on ${API_PREFIX}${path}; allowed: ${allow.join(", ")}.`,
        );
      }
      const { route, params } = match;
      applyDeprecation(route, params, services.clock.now(), services.env.baseUrl, headers);
      // A feature that is off answers 503 before anything is metered: the caller spent nothing on it.
      if (route.meta.feature) assertFeatureEnabled(services.env, route.meta.feature);

      const principal = await resolvePrincipal(req, services);
      ctx.principal = principal;
      if (principal?.kind === "session") assertSameOrigin(req, services.env.baseUrl);
      // Limits apply once the caller is known: requests refused before (unknown route, no or bad credentials)
      // spend and report no budget.
      const routeLabel = `${route.method} ${route.path}`;
      if (principal)
        await meterRequest(ctx, principal, { label: routeLabel, unmetered: !!route.meta.unmetered });

      const body = BODY_METHODS.has(method) ? await readJsonBody(req) : {};
      const input = {
        ...(BODY_METHODS.has(method) ? body : queryInput(url)),
        ...params,
      };

      const key = req.headers.get("idempotency-key");
      const useIdempotency =
        method === "POST" && key !== null && route.meta.idempotent !== false && principal !== null;
      if (key !== null) validateIdempotencyKey(key);
      ctx.idempotencyKey = key;

      const run = async (): Promise<{ status: number; body: unknown }> => {
        try {
          let fn = deps.createCaller(ctx);
          for (const seg of route.procedurePath.split(".")) fn = fn[seg];
          const policy = { mode: services.limits.mode, requestId, route: routeLabel };
          const output = await withLimitPolicy(policy, () => fn(input));
          return {
            status: ctx.response.status ?? route.meta.successStatus ?? 200,
            body: output,
          };
        } catch (err) {
          const { error, unexpected } = toApiError(err, input);
          if (unexpected) console.error(`[${requestId}] ${method} ${path} failed:`, err);
          Object.assign(headers, error.headers);
          return {
            status: error.status,
            body: toErrorEnvelope(error, requestId),
          };
        }
      };

      if (!useIdempotency) {
        const result = await run();
        const raw = ctx.response.raw;
        if (raw && result.status < 300 && typeof result.body === "string") {
          return {
            status: result.status,
            headers: { ...headers, ...raw.headers, "Content-Type": raw.contentType },
            body: result.body,
          };
        }
        return json(result.status, result.body, headers);
      }
      const scope = idempotencyScope(principal!);
      const fingerprint = requestFingerprint(method, path, body);
      const claim = await claimIdempotencyKey(services.db, scope, key!, fingerprint, services.clock.now());
      if (claim.kind === "replay") {
        return json(claim.response.status, claim.response.body, {
          ...headers,
          "Idempotent-Replayed": "true",
        });
      }
      const result = await run();
      await settleIdempotencyKey(services.db, scope, key!, result);
      return json(result.status, result.body, headers);
    } catch (err) {
      const { error, unexpected } = toApiError(err);
      if (unexpected) console.error(`[${requestId}] ${req.method} ${req.url} failed:`, err);
      Object.assign(headers, error.headers);
      return json(error.status, toErrorEnvelope(error, requestId), headers);
    }
  };
}

export type { AnyRouter };
