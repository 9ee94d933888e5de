import type { Plan } from "@rubricon/contracts";
import { type Actor, ApiError, resolveRequestTeam } from "@rubricon/core";
import type { Env } from "../config/env";
import type { AppServices } from "../request/context";
import type { Feature } from "../request/route-meta";

/** Deployment-level feature flags a route can belong to (route meta `feature`). */
export type { Feature } from "../request/route-meta";

const FEATURE_FLAGS: Record<Feature, { enabled: (env: Env) => boolean; name: string; setting: string }> = {
  webhooks: {
    enabled: (env) => env.webhooksEnabled,
    name: "Webhooks and the event log",
    setting: "WEBHOOKS_ENABLED",
  },
};

/** A feature that is off is a temporary state of the deployment, so clients are told to come back later. */
const FEATURE_RETRY_AFTER_SEC = 3600;

export function assertFeatureEnabled(env: Env, feature: Feature): void {
  const flag = FEATURE_FLAGS[feature];
  if (flag.enabled(env)) return;
  // The message names the setting: the person who meets this is often the operator of a fresh install.
  throw new ApiError(
    "feature_not_available",
    `${flag.name} are turned off on this deployment; its operator turns them on with ${flag.setting}=true.`,
    { headers: { "Retry-After": String(FEATURE_RETRY_AFTER_SEC) }, details: { setting: flag.setting } },
  );
}

/**
 * The team the request acts on must be on one of `plans`. For a key or OAuth token that is its team; for a
 * signed-in user (who may belong to several teams) the request's target team: `teamId` when given, else the
 * team owning the resource in the path, else the personal team.
 */
export async function assertPlanAllows(
  services: AppServices,
  actor: Actor,
  plans: readonly Plan[],
  input: unknown,
): Promise<void> {
  const fields = input !== null && typeof input === "object" ? (input as Record<string, unknown>) : {};
  const { team } = await resolveRequestTeam(services.db, actor, fields);
  if (plans.includes(team.plan)) return;
  const names = plans.map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join(" and ");
  throw new ApiError(
    "plan_upgrade_required",
    `This route is available on the ${names} plans; team ${team.id} is on ${team.plan}. Upgrade the team's plan to use it.`,
    { details: { plan: team.plan, requiredPlans: plans } },
  );
}
