import type { Plan } from "@rubricon/contracts";
import type { Db } from "@rubricon/db";
import type { Clock } from "./clock";
import type { LimitPolicy } from "./limit-policy";

/** What a domain function needs from its surroundings; no HTTP in here. */
export interface CoreContext {
  db: Db;
  clock: Clock;
  /** Public origin of the deployment, e.g. `https://rubricon.example`, used for links. */
  baseUrl: string;
  /** The API request that causes a change, recorded on the events it emits. */
  request?: {
    id: string | null;
    idempotencyKey: string | null;
    /** The API version the request answers in, when it names one or its credential's team is pinned to one. */
    apiVersion?: string | null;
  };
  /** How the request's quotas are treated (the deployment's mode) and what a log line about them names. */
  limits?: LimitPolicy;
  /** The plan a team created now starts on: `free` where the deployment bills, `self_hosted` where it does not. */
  newTeamPlan?: Plan;
}

/**
 * Who is acting. Session and plugin principals act as the user on every team they belong to; API keys and
 * OAuth tokens are bound to one team (`boundTeamId`) and may act on no other.
 */
export interface Actor {
  userId: string;
  boundTeamId: string | null;
  principal: "session" | "api_key" | "oauth" | "plugin";
}
