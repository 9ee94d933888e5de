import { API_VERSIONS, type ApiVersion, isApiVersion, LATEST_API_VERSION } from "@rubricon/contracts";
import { ApiError, teamApiVersion } from "@rubricon/core";
import type { Principal, RequestContext } from "../request/context";
import { changesAfter, VERSION_CHANGES, type VersionChange } from "./registry";

export { VERSION_CHANGES, type VersionChange } from "./registry";

type Json = Record<string, unknown>;

/** The `Service-Version` a request named, checked: an unknown one is a 400 that lists the known ones. */
export function requestedVersion(header: string | null): ApiVersion | null {
  if (header === null) return null;
  const value = header.trim();
  if (isApiVersion(value)) return value;
  throw new ApiError(
    "api_version_unknown",
    `Unknown API version ${JSON.stringify(value.slice(0, 40))} in Service-Version; the known versions are ` +
      `${API_VERSIONS.join(", ")} (newest last).`,
    { param: "Service-Version" },
  );
}

// A team's pinned version only changes by a migration of the deployment, never by a request, so it is read once.
const PINNED_CACHE_LIMIT = 10_000;
const pinned = new Map<string, ApiVersion>();

async function pinnedVersion(ctx: RequestContext, teamId: string): Promise<ApiVersion> {
  const cached = pinned.get(teamId);
  if (cached) return cached;
  const stored = await teamApiVersion(ctx.services.db, teamId);
  const version = stored && isApiVersion(stored) ? stored : LATEST_API_VERSION;
  if (pinned.size >= PINNED_CACHE_LIMIT) pinned.clear();
  pinned.set(teamId, version);
  return version;
}

/**
 * Settles the version a `/api/v1` request answers in: the `Service-Version` it sends, else the version its key's
 * or token's team is pinned to, else (a signed-in user, bound to no team) the newest. Records it on the context
 * and in the response's `Service-Version`; an unknown version is refused before anything else is read.
 */
export async function settleApiVersion(
  ctx: RequestContext,
  header: string | null,
  principal: Principal | null,
): Promise<ApiVersion> {
  const named = requestedVersion(header);
  const version =
    named ??
    (principal && (principal.kind === "api_key" || principal.kind === "oauth")
      ? await pinnedVersion(ctx, principal.teamId)
      : null);
  if (version) ctx.apiVersion = version;
  const answered = version ?? LATEST_API_VERSION;
  ctx.response.headers["Service-Version"] = answered;
  return answered;
}

/** A request's input written for `version`, brought up to the newest version's shape. */
export function upgradeRequest(input: Json, version: ApiVersion, route: string): Json {
  let out = input;
  for (const change of VERSION_CHANGES) {
    if (change.version > version && change.request) out = change.request(out, route);
  }
  return out;
}

function walk(value: unknown, changes: VersionChange[], version: ApiVersion, depth: number): unknown {
  if (depth > 16 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => walk(v, changes, version, depth + 1));
  let obj = value as Json;
  const out: Json = {};
  for (const [key, v] of Object.entries(obj)) out[key] = walk(v, changes, version, depth + 1);
  obj = out;
  // An event names the version its payload is rendered in.
  if (obj.object === "event" && typeof obj.api_version === "string") obj.api_version = version;
  const kind = typeof obj.object === "string" ? obj.object : null;
  if (kind === null) return obj;
  for (const change of changes) if (change.objects.includes(kind)) obj = change.response(obj);
  return obj;
}

/** A response body in the newest version's shape, as `version` shows it. */
export function renderResponse(body: unknown, version: ApiVersion): unknown {
  const changes = changesAfter(version);
  return changes.length === 0 ? body : walk(body, changes, version, 0);
}

/**
 * A stored event (newest shape) as a webhook endpoint on `apiVersion` receives it: its object in that version's
 * shape and `api_version` naming it. A version the deployment no longer knows gets the newest shape.
 */
export function renderEventPayload(payload: string, apiVersion: string): string {
  if (!isApiVersion(apiVersion) || apiVersion === LATEST_API_VERSION) return payload;
  return JSON.stringify(renderResponse(JSON.parse(payload), apiVersion));
}

/** A successful response body as the request's version shows it. */
export function versionedBody(ctx: RequestContext, body: unknown): unknown {
  const version = ctx.apiVersion;
  return version && isApiVersion(version) ? renderResponse(body, version) : body;
}

/** Every version, newest first, with what changed in it: the changelog the OpenAPI document and /docs show. */
export function apiVersionChangelog(): { version: ApiVersion; changes: string[] }[] {
  return [...API_VERSIONS].reverse().map((version) => ({
    version,
    changes:
      version === API_VERSIONS[0]
        ? ["The first dated version: every team and webhook endpoint created before pinning answers in it."]
        : VERSION_CHANGES.filter((c) => c.version === version).map((c) => c.summary),
  }));
}

/** The changelog as the OpenAPI document's `info.description` tells it. */
export function apiVersionsDescription(): string {
  const lines = apiVersionChangelog().map(
    ({ version, changes }) =>
      `- **${version}**${version === LATEST_API_VERSION ? " (newest)" : ""}: ${changes.join(" ")}`,
  );
  return [
    "## API versions",
    "",
    "Dated versions, as Stripe's: a team answers in the version that was newest when it was created; a request " +
      "may send `Service-Version: <date>` to use another (an unknown one is 400 `api_version_unknown`), and every " +
      "response's `Service-Version` names the version that answered. Webhook payloads follow the version their " +
      `endpoint was created under. This document describes the newest version, ${LATEST_API_VERSION}.`,
    "",
    ...lines,
  ].join("\n");
}
