import { z } from "zod";

/**
 * The dated API versions, oldest first. A team is pinned to the newest one when it is created; a request may ask
 * for another with the `Service-Version` header. What changed in each is in `packages/api/src/versions/` and
 * docs/api-versions.md.
 */
export const API_VERSIONS = ["2026-11-01", "2026-11-25"] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const ApiVersion = z.enum(API_VERSIONS);

/** Teams and webhook endpoints that existed before versions could be pinned answer in this one. */
export const FIRST_API_VERSION: ApiVersion = API_VERSIONS[0];
export const LATEST_API_VERSION: ApiVersion = API_VERSIONS[API_VERSIONS.length - 1]!;

export function isApiVersion(value: string): value is ApiVersion {
  return (API_VERSIONS as readonly string[]).includes(value);
}
