import type { RouteMeta } from "../request/route-meta";

/** What each tag of the API reference groups; every tag an operation uses must be listed here. */
export const TAGS: Record<string, string> = {
  Auth: "Who the caller is, and pairing the design-tool plugin with an account.",
  "API Keys": "Personal and team API keys: create, list and revoke them from a signed-in session.",
  Teams: "Teams, their members and roles, and finding a person to add by e-mail.",
  Shares: "Giving people outside the team access to one evaluation.",
  Invites: "E-mailed, single-use invitations to an evaluation.",
  "Access Requests":
    "People outside the team asking for access to an evaluation, and the team approving or declining.",
  Notifications: "The signed-in user's notifications (access requests, shares, finished runs).",
  Evaluations:
    "Evaluations: what is rated, their comparisons, share links, public raters, results, agreement and exports.",
  Ratings: "Ratings of an evaluation's comparisons by people and autousers.",
  Autousers: "Simulated raters: personas, their rubrics and calibration, and runs on evaluations.",
  Templates: "Rating templates (the questions and scales raters answer), with their version history.",
  "Dimensions (deprecated)":
    "The former name of templates; these routes answer as `/templates` does until their sunset.",
  Usage: "The team's plan, its limits and what it used this billing period.",
  OAuth: "Third-party apps a user authorized through OAuth, and disconnecting them.",
  Webhooks:
    "Signed HTTP callbacks for events (beta, behind `WEBHOOKS_ENABLED`, Pro and Enterprise teams): endpoints, " +
    "secrets and deliveries.",
  Settings: "Bring-your-own-key model settings: the team's own model provider, model and key.",
  Events: "The team's event log, each event as webhook deliveries send it (beta, with webhooks).",
  Files: "Uploaded screenshots and designs, and downloading them.",
  "Link Preview": "Open Graph previews of public pages, for design-tool links.",
  Conversations: "The evaluation builder's chats: the assistant drafts an evaluation from a description.",
};

const FEATURE_SWITCH: Record<NonNullable<RouteMeta["feature"]>, string> = {
  webhooks: "WEBHOOKS_ENABLED",
};

const title = (plan: string) => (plan.charAt(0).toUpperCase() + plan.slice(1)).replace("_", "-");

/**
 * Who may call a route and what it refuses, written from the same meta the server enforces it by (`assertMayCall`,
 * the feature and plan gates, the route limit), so the reference cannot drift from the server.
 */
export function accessNotes(meta: RouteMeta): string[] {
  const notes: string[] = [];
  if (meta.public) {
    notes.push("Callable without credentials.");
  } else if (meta.sessionOnly) {
    notes.push(
      "Signed-in session only (the dashboard's session cookie): API keys and OAuth tokens get 403 `session_required`.",
    );
  } else {
    const scopes = [meta.scope ?? []].flat();
    if (scopes.length > 0) {
      notes.push(
        `API keys and OAuth tokens need the ${scopes.map((s) => `\`${s}\``).join(" and ")} scope${
          scopes.length > 1 ? "s" : ""
        } (else 403 \`missing_required_scope\`); a signed-in session needs none.`,
      );
    }
  }
  if (meta.feature) {
    notes.push(
      `Beta: while the deployment's \`${FEATURE_SWITCH[meta.feature]}\` setting is off it answers 503 ` +
        "`feature_not_available`, after checking credentials.",
    );
  }
  if (meta.plans) {
    notes.push(
      `For teams on the ${meta.plans.map(title).join(" and ")} plans; other teams get 403 \`plan_upgrade_required\`.`,
    );
  }
  if (meta.routeLimit) {
    const { limit, windowSec, key } = meta.routeLimit;
    notes.push(
      `At most ${limit} calls per ${windowSec === 60 ? "minute" : `${windowSec} seconds`} per ${
        key === "user" ? "user" : key === "id" ? (meta.routeLimit.noun ?? "resource") : "client address"
      }, beyond the team's budget; past that 429 \`rate_limit_exceeded\` with \`Retry-After\`.`,
    );
  }
  if (meta.unmetered) notes.push("Spends nothing of the team's per-minute budget.");
  if (meta.deprecation) {
    notes.push(
      `Deprecated: use \`${meta.deprecation.successor}\`. From ${meta.deprecation.sunset.toISOString().slice(0, 10)} ` +
        "it answers 410 `route_sunset`.",
    );
  }
  return notes;
}
