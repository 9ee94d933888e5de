import type { Scope } from "@rubricon/contracts";
import type { Actor } from "@rubricon/core";

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
