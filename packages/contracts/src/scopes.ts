import { z } from "zod";

export const SCOPE_FAMILIES = ["templates", "evaluations", "autousers", "ratings", "webhooks"] as const;

/** The spec's 13 scopes plus the webhook and event-log ones. */
export const SCOPES = [
  "*",
  "templates:read",
  "templates:write",
  "templates:*",
  "evaluations:read",
  "evaluations:write",
  "evaluations:*",
  "autousers:read",
  "autousers:write",
  "autousers:*",
  "ratings:read",
  "ratings:write",
  "ratings:*",
  "webhooks:read",
  "webhooks:write",
  "webhooks:*",
  "events:read",
] as const;
export type Scope = (typeof SCOPES)[number];
export const ScopeSchema = z.enum(SCOPES);

/** A scope a route can require: a literal `family:action`, never a wildcard. */
export type RequiredScope = Exclude<Scope, "*" | `${string}:*`>;

/** Check order of the spec: the literal scope, then the family wildcard, then `*`. */
export function scopeGrants(held: readonly string[], required: RequiredScope): boolean {
  if (held.includes(required)) return true;
  const family = required.slice(0, required.indexOf(":"));
  if (held.includes(`${family}:*`)) return true;
  return held.includes("*");
}
