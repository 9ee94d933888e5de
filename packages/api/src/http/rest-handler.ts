import { ApiError, runIdempotently } from "@rubricon/core";
import { idempotencyReplays } from "../observability/metrics";
import type { Principal, RequestContext } from "../request/context";
import type { Reply, ServerSentEvent } from "../request/reply";
import { admitRestRequest } from "../trpc/admission";
import { callProcedure } from "../trpc/internals";
import type { RedirectTarget } from "../trpc/redirect";
import { settleApiVersion, upgradeRequest, versionedBody } from "../versions";
import { requestFingerprint, validateIdempotencyKey } from "./idempotency";
import { discardUpload, receiveMultipart } from "./multipart";
import {
  DEFAULT_BODY_LIMIT,
  type EntryPoint,
  type Exchange,
  jsonReply,
  noneMatchHits,
  notModifiedReply,
  redirectReply,
  revalidated,
  serializedOnce,
  streamReply,
} from "./pipeline";
import type { Route, RouteTable } from "./route-table";
import { acquireStreamSlot } from "./stream-slots";

export const API_PREFIX = "/api/v1";
const BODY_METHODS = new Set(["POST", "PATCH", "PUT"]);

interface RestDeps {
  routes: RouteTable;
  openApiDocument: () => unknown;
}

/** A procedure's outcome as the status and body it answers. */
async function runRoute(
  ex: Exchange,
  route: Route,
  input: unknown,
  ctx: RequestContext = ex.ctx,
): Promise<{ status: number; body: unknown }> {
  try {
    const output = await callProcedure(route.procedure, { ctx, input, path: route.procedurePath });
    return { status: ex.ctx.response.status ?? route.meta.successStatus ?? 200, body: output };
  } catch (err) {
    return ex.failure(err, input);
  }
}

function answer(ex: Exchange, route: Route, result: { status: number; body: unknown }): Reply {
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

/**
 * A query parameter the route does not take is refused as an unknown body field is (`parameter_unknown`), so a
 * misspelled filter fails loudly instead of answering the unfiltered list. Checked on the input as the current
 * version names it, after an older version's names were upgraded.
 */
function refuseUnknownQuery(route: Route, input: Record<string, unknown>): void {
  if (!route.inputNames) return;
  for (const name of Object.keys(input)) {
    if (!route.inputNames.has(name) && !route.paramNames.includes(name))
      throw new ApiError("parameter_unknown", `Received unknown parameter: ${name}.`, { param: name });
  }
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
function applyDeprecation(route: Route, params: Record<string, string>, ex: Exchange): void {
  const d = route.meta.deprecation;
  if (!d) return;
  const successor = d.successor.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(params[name] ?? name),
  );
  const { services } = ex.ctx;
  ex.headers.Deprecation = "true";
  ex.headers.Sunset = d.sunset.toUTCString();
  ex.headers.Link = `<${services.env.baseUrl}${API_PREFIX}${successor}>; rel="successor-version"`;
  if (services.clock.now().getTime() >= d.sunset.getTime()) {
    throw new ApiError(
      "route_sunset",
      `This route was removed on ${d.sunset.toUTCString()}; use ${API_PREFIX}${successor}.`,
    );
  }
}

/**
 * Idempotency keys belong to one credential: a key is replayed only to the API key, OAuth app or user that made
 * the first request, never to another credential of the same team.
 */
function idempotencyScope(principal: Principal): string {
  switch (principal.kind) {
    case "api_key":
      return `team:${principal.teamId}:key:${principal.keyId}`;
    case "oauth":
      return `team:${principal.teamId}:oauth:${principal.clientId ?? "-"}:user:${principal.userId}`;
    default:
      return `user:${principal.userId}`;
  }
}

/** The response as kept for replay: without the fields that hold a secret shown once. */
function storableResult(route: Route, result: { status: number; body: unknown }) {
  const secrets = route.meta.secretFields;
  if (!secrets || result.body === null || typeof result.body !== "object") return result;
  const body = { ...(result.body as Record<string, unknown>) };
  for (const field of secrets) delete body[field];
  return { status: result.status, body };
}

function secretNotReplayable(body: unknown): ApiError {
  const id = (body as { id?: unknown } | null)?.id;
  return new ApiError(
    "idempotency_replay_unavailable",
    `A request with this Idempotency-Key already succeeded${typeof id === "string" ? ` and created ${id}` : ""}, ` +
      "but its secret was shown only in that first response and is not kept, so it cannot be replayed. Use the " +
      "object it created (rotate its secret, or revoke it and create another) or send a new key.",
    { param: "Idempotency-Key", ...(typeof id === "string" ? { details: { id } } : {}) },
  );
}

/** The route a path and method name, or the 404/405 that says why there is none. */
function matchRoute(routes: RouteTable, ex: Exchange, path: string, method: string) {
  const matches = routes.match(path);
  if (matches.length === 0)
    throw new ApiError("route_not_found", `Unrecognized request URL (${method} ${API_PREFIX}${path}).`);
  const effectiveMethod = method === "HEAD" ? "GET" : method;
  const match = matches.find((m) => m.route.method === effectiveMethod);
  if (match) return match;
  const allow = [...new Set(matches.map((m) => m.route.method))];
  if (allow.includes("GET")) allow.push("HEAD");
  ex.headers.Allow = allow.join(", ");
  if (method === "OPTIONS") return null;
  throw new ApiError(
    "method_not_allowed",
    `${method} is not allowed on ${API_PREFIX}${path}; allowed: ${allow.join(", ")}.`,
  );
}

/** The REST surface: every `/api/v1` request from route match to the procedure's answer. */
export function createRestEntry(deps: RestDeps): EntryPoint {
  return {
    prefix: API_PREFIX,
    async handle(ex: Exchange): Promise<Reply> {
      const { services } = ex.ctx;
      const path = ex.url.pathname.slice(API_PREFIX.length).replace(/\/+$/, "") || "/";
      const method = ex.req.method.toUpperCase();

      if (path === "/openapi.json" && (method === "GET" || method === "HEAD")) {
        return jsonReply(ex, 200, deps.openApiDocument(), { "Cache-Control": "public, max-age=300" });
      }
      const match = matchRoute(deps.routes, ex, path, method);
      if (!match) return jsonReply(ex, 204, null);
      const { route, params } = match;
      applyDeprecation(route, params, ex);

      const principal = await ex.principal();
      const version = await settleApiVersion(ex.ctx, ex.req.headers.get("service-version"), principal);
      // Credentials, session and scope are settled before the body is read: an anonymous or unscoped caller is
      // told 401 or 403, not what is wrong with a body it may not send.
      await admitRestRequest(ex.ctx, ex.req, principal, route);
      const hasBody = BODY_METHODS.has(method);
      // An upload's file streams to a staging file; its other parts are the input, as a JSON body's fields are.
      const upload = route.meta.upload ? await receiveMultipart(ex, route.meta.upload) : null;
      if (upload) ex.ctx.upload = upload.file;
      const body = upload
        ? upload.fields
        : hasBody
          ? await ex.readJson(route.meta.maxBodyBytes ?? DEFAULT_BODY_LIMIT)
          : {};
      const input = upgradeRequest(
        { ...(hasBody ? body : queryInput(ex.url)), ...params },
        version,
        `${route.method} ${route.path}`,
      );
      const key = ex.req.headers.get("idempotency-key");
      try {
        if (!hasBody && !upload) refuseUnknownQuery(route, input);
        if (key !== null) validateIdempotencyKey(key);
      } catch (err) {
        await discardUpload(upload);
        throw err;
      }
      ex.ctx.idempotencyKey = key;

      if (route.stream) {
        // A client that reconnects sends the id of the last event it saw; the procedure resumes after it.
        const lastEventId = ex.req.headers.get("last-event-id");
        if (lastEventId !== null) input.lastEventId = lastEventId;
        const release = acquireStreamSlot(principal, input);
        const controller = new AbortController();
        controller.signal.addEventListener("abort", release, { once: true });
        ex.req.signal.addEventListener("abort", () => controller.abort(), { once: true });
        try {
          const events = await callProcedure(route.procedure, {
            ctx: ex.ctx,
            input,
            path: route.procedurePath,
            signal: controller.signal,
          });
          return await streamReply(ex, events as AsyncIterable<ServerSentEvent>, () => controller.abort());
        } catch (err) {
          controller.abort();
          const failed = ex.failure(err, input);
          return jsonReply(ex, failed.status, failed.body);
        }
      }

      if (upload) {
        try {
          return answer(ex, route, await runRoute(ex, route, input));
        } finally {
          await discardUpload(upload);
        }
      }
      const useIdempotency =
        method === "POST" && key !== null && route.meta.idempotent !== false && principal;
      if (!useIdempotency) return answer(ex, route, await runRoute(ex, route, input));
      // A replay answers only a caller the route itself would serve: `admitRestRequest` above has decided it.
      const { replayed, response } = await runIdempotently(
        services.db,
        {
          scope: idempotencyScope(principal),
          key,
          fingerprint: requestFingerprint(method, path, body),
          now: services.clock.now(),
        },
        (tx) => runRoute(ex, route, input, { ...ex.ctx, services: { ...services, db: tx } }),
        (outcome) => storableResult(route, outcome),
      );
      if (replayed) {
        if (route.meta.secretFields) throw secretNotReplayable(response.body);
        idempotencyReplays.inc();
        return jsonReply(ex, response.status, versionedBody(ex.ctx, response.body), {
          "Idempotent-Replayed": "true",
        });
      }
      return answer(ex, route, response);
    },
  };
}
