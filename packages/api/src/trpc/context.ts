import type { Scope } from "@rubricon/contracts";
import type { Actor, Clock, CoreContext } from "@rubricon/core";
import type { Db } from "@rubricon/db";
import type { Env } from "../config/env";
import type { RateLimits } from "../limits/rate-limits";

export type Principal =
  | { kind: "session"; userId: string; sessionId: string }
  | {
      kind: "api_key";
      userId: string;
      teamId: string;
      keyId: string;
      scopes: Scope[];
    }
  | {
      kind: "oauth";
      userId: string;
      teamId: string;
      scopes: Scope[];
      clientId: string | null;
    }
  | { kind: "plugin"; userId: string };

/** Per-request bag the transport merges into the response, error or not. */
export interface ResponseState {
  headers: Record<string, string>;
  /** Overrides the route's success status for this response (a dry run creates nothing: 200, not 201). */
  status?: number;
  /** Set by routes that answer something other than JSON (a CSV export): the body is the procedure's string. */
  raw?: { contentType: string; headers?: Record<string, string> };
}

export interface AppServices {
  db: Db;
  env: Env;
  clock: Clock;
  limits: RateLimits;
}

export interface RequestContext {
  services: AppServices;
  principal: Principal | null;
  /** The caller's address as the trusted proxies report it (see `clientIp`). */
  clientIp: string | null;
  requestId: string;
  idempotencyKey: string | null;
  response: ResponseState;
}

export function actorOf(principal: Principal): Actor {
  switch (principal.kind) {
    case "api_key":
    case "oauth":
      return {
        userId: principal.userId,
        boundTeamId: principal.teamId,
        principal: principal.kind,
      };
    default:
      return {
        userId: principal.userId,
        boundTeamId: null,
        principal: principal.kind,
      };
  }
}

export function coreContext(ctx: RequestContext): CoreContext {
  return {
    db: ctx.services.db,
    clock: ctx.services.clock,
    baseUrl: ctx.services.env.baseUrl,
    request: { id: ctx.requestId, idempotencyKey: ctx.idempotencyKey },
  };
}
