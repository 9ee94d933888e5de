import type { ApiVersion } from "@rubricon/contracts";
import { ApiError } from "@rubricon/core";
import type { Exchange } from "../request/exchange";
import { upgradeRequest } from "../versions";
import { validateIdempotencyKey } from "./idempotency";
import { discardUpload, type ReceivedUpload, receiveMultipart } from "./multipart";
import { DEFAULT_BODY_LIMIT } from "./pipeline";
import type { Route, RouteTable } from "./route-table";

export const API_PREFIX = "/api/v1";
const BODY_METHODS = new Set(["POST", "PATCH", "PUT"]);

/** A `/api/v1` request as its request line names it. */
export interface RestTarget {
  method: string;
  /** The path below `/api/v1`, without a trailing slash. */
  path: string;
}

/** A request whose route is known: what every later stage reads. */
export interface RestRequest extends RestTarget {
  ex: Exchange;
  route: Route;
  params: Record<string, string>;
}

/** What a request gives its procedure, read only once the caller was admitted. */
export interface RestInput {
  /** The procedure's input as the current version names it: body or query, and the path parameters. */
  input: Record<string, unknown>;
  /** The body as sent, whose fingerprint an `Idempotency-Key` is bound to. */
  body: Record<string, unknown>;
  upload: ReceivedUpload | null;
  idempotencyKey: string | null;
}

export function restTarget(ex: Exchange): RestTarget {
  return {
    method: ex.req.method.toUpperCase(),
    path: ex.url.pathname.slice(API_PREFIX.length).replace(/\/+$/, "") || "/",
  };
}

/** The route a path and method name, null for an `OPTIONS` answered by `Allow`, or the 404/405 saying why not. */
export function matchRoute(routes: RouteTable, ex: Exchange, target: RestTarget): RestRequest | null {
  const { path, method } = target;
  const matches = routes.match(path);
  if (matches.length === 0)
    throw new ApiError("route_not_found", `Unrecognized request URL (${method} ${API_PREFIX}${path}).`);
  const effectiveMethod = method === "HEAD" ? "GET" : method;
  const match = matches.find((m) => m.route.method === effectiveMethod);
  if (match) {
    const request = { ex, method, path, route: match.route, params: match.params };
    applyDeprecation(request);
    return request;
  }
  const allow = [...new Set(matches.map((m) => m.route.method))];
  if (allow.includes("GET")) allow.push("HEAD");
  ex.headers.Allow = allow.join(", ");
  if (method === "OPTIONS") return null;
  throw new ApiError(
    "method_not_allowed",
    `${method} is not allowed on ${API_PREFIX}${path}; allowed: ${allow.join(", ")}.`,
  );
}

/** Route meta `deprecation` is the whole mechanism: headers before the sunset, 410 from it on. */
function applyDeprecation({ ex, route, params }: RestRequest): void {
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
 * The procedure's input: a JSON body, an upload's fields (its file streams to a staging file, `ctx.upload`) or
 * the query, with the path parameters, upgraded from the request's version to the current one.
 */
export async function readInput(request: RestRequest, version: ApiVersion): Promise<RestInput> {
  const { ex, route, method } = request;
  const hasBody = BODY_METHODS.has(method);
  const upload = route.meta.upload ? await receiveMultipart(ex, route.meta.upload) : null;
  if (upload) ex.ctx.upload = upload.file;
  const body = upload
    ? upload.fields
    : hasBody
      ? await ex.readJson(route.meta.maxBodyBytes ?? DEFAULT_BODY_LIMIT)
      : {};
  const input = upgradeRequest(
    { ...(hasBody ? body : queryInput(ex.url)), ...request.params },
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
  return { input, body, upload, idempotencyKey: key };
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
