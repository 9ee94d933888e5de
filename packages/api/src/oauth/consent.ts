import {
  ConsentDecision,
  type ConsentDetails,
  SCOPE_DESCRIPTIONS,
  SCOPES,
  type Scope,
} from "@rubricon/contracts";
import { ApiError, recordGrant, resolveTargetTeam, teamsOfUser } from "@rubricon/core";
import type Provider from "oidc-provider";
import { parseJsonBody } from "../http/json-body";
import { jsonReply } from "../http/reply";
import { assertSameOrigin } from "../request/csrf";
import type { Exchange } from "../request/exchange";
import { actorOf } from "../request/principal";
import type { Reply } from "../request/reply";
import { oauthResources } from "./provider";

const DECISION_BODY_LIMIT = 4 * 1024;
const known = new Set<string>(SCOPES);

type Interaction = InstanceType<Provider["Interaction"]>;

function resourcesOf(interaction: Interaction, baseUrl: string): string[] {
  const requested = interaction.params.resource;
  if (Array.isArray(requested)) return requested.map(String);
  return typeof requested === "string" ? [requested] : [oauthResources(baseUrl).api];
}

function scopesOf(interaction: Interaction): Scope[] {
  const requested = typeof interaction.params.scope === "string" ? interaction.params.scope.split(" ") : [];
  return [...new Set(requested.filter((s): s is Scope => known.has(s)))];
}

function hostOf(uri: unknown): string {
  try {
    const url = new URL(String(uri));
    return url.host || url.protocol;
  } catch {
    return "";
  }
}

/**
 * The consent page's API: `GET /api/oauth/interaction/{uid}` says which app asks for what, and
 * `POST /api/oauth/interaction/{uid}` records the signed-in user's decision and answers where the browser goes
 * next (back into the authorization endpoint, which redirects to the app).
 */
export async function handleConsent(ex: Exchange, provider: Provider, uid: string): Promise<Reply> {
  const { services } = ex.ctx;
  if (ex.req.method !== "GET" && ex.req.method !== "POST") {
    ex.headers.Allow = "GET, POST";
    throw new ApiError("method_not_allowed", `${ex.req.method} is not allowed here; use GET or POST.`);
  }
  const principal = await ex.principal();
  if (!principal) throw new ApiError("authentication_required", "Sign in to authorize an app.");
  if (principal.kind !== "session")
    throw new ApiError("session_required", "Apps are authorized from a signed-in session only.");
  const interaction = await provider.Interaction.find(uid);
  if (!interaction)
    throw new ApiError(
      "authorization_request_expired",
      "This authorization request has expired or was already answered; start again from the app.",
    );
  const clientId = String(interaction.params.client_id);
  const client = await provider.Client.find(clientId);
  if (!client)
    throw new ApiError("authorization_request_expired", "The app asking for access no longer exists.");
  const scopes = scopesOf(interaction);
  const resources = resourcesOf(interaction, services.env.baseUrl);

  if (ex.req.method === "GET") {
    const details: ConsentDetails = {
      uid,
      client: {
        clientId,
        name: client.clientName ?? clientId,
        redirectHost: hostOf(interaction.params.redirect_uri),
        uri: typeof client.clientUri === "string" ? client.clientUri : null,
      },
      scopes: scopes.map((scope) => ({ scope, description: SCOPE_DESCRIPTIONS[scope] })),
      resources,
      teams: await teamsOfUser(services.db, principal.userId),
    };
    return jsonReply(ex, 200, details);
  }

  assertSameOrigin(ex.req, services.env.baseUrl);
  const input = await parseJsonBody(ex, ConsentDecision, DECISION_BODY_LIMIT);
  if (input.decision === "deny") {
    interaction.result = {
      error: "access_denied",
      error_description: "The user declined the authorization.",
    };
  } else {
    if (scopes.length === 0)
      throw ApiError.invalid(
        "scope",
        "The app asked for no scope this server knows; nothing can be granted.",
      );
    const { team } = await resolveTargetTeam(services.db, actorOf(principal), input.teamId);
    const grant = new provider.Grant({ accountId: principal.userId, clientId });
    for (const resource of resources) grant.addResourceScope(resource, scopes.join(" "));
    const grantId = await grant.save();
    const now = services.clock.now();
    await recordGrant(
      services.db,
      {
        id: grantId,
        clientId,
        userId: principal.userId,
        teamId: team.id,
        resource: resources.join(" "),
        scopes,
      },
      now,
    );
    interaction.result = {
      login: { accountId: principal.userId },
      consent: { grantId },
    };
  }
  const remaining = interaction.exp - Math.floor(services.clock.now().getTime() / 1000);
  await interaction.save(Math.max(remaining, 1));
  return jsonReply(ex, 200, { redirectTo: interaction.returnTo });
}
