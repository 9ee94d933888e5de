import {
  ApiKeyCreateInput,
  ApiKeyList,
  ApiKeyWithSecret,
  DeletedObject,
  IdParam,
  PageQuery,
  withCursorRules,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import { apiProcedure, router } from "../trpc/init";
import { toList } from "./list";

const tags = ["API Keys"];

const TeamKeyParams = z.object({ id: IdParam, keyId: IdParam }).strict();

export const apiKeysRouter = router({
  // GET /teams/{id}/api-keys — every key of the team (owners and admins)
  listForTeam: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/teams/{id}/api-keys",
        tags,
        summary: "List the team's API keys",
        description:
          "Every key acting on the team, whoever minted it, revoked ones included. Owners and admins only; a " +
          "signed-in session only.",
      },
      sessionOnly: true,
    })
    .input(withCursorRules(PageQuery.extend({ id: IdParam })))
    .output(ApiKeyList)
    .query(async ({ ctx, input: { id, ...query } }) =>
      toList(ctx, await core.listTeamApiKeys(ctx.core, ctx.actor, id, query)),
    ),

  // DELETE /teams/{id}/api-keys/{keyId} — revoke any key of the team (owners and admins)
  revokeForTeam: apiProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/teams/{id}/api-keys/{keyId}",
        tags,
        summary: "Revoke a team's API key",
        description:
          "Revokes any API key acting on the team, whoever minted it; it stops working at once. Owners and admins only (else 403 `insufficient_role`).",
      },
      sessionOnly: true,
    })
    .input(TeamKeyParams)
    .output(DeletedObject)
    .mutation(({ ctx, input }) => core.revokeTeamApiKey(ctx.core, ctx.actor, input.id, input.keyId)),

  // GET /api-keys — the keys the signed-in user minted
  list: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api-keys",
        tags,
        summary: "List API keys",
        description:
          "The API keys the signed-in user minted, on every team, revoked ones included; secrets are never shown again, only their prefixes.",
      },
      sessionOnly: true,
    })
    .input(withCursorRules(PageQuery))
    .output(ApiKeyList)
    .query(async ({ ctx, input }) => toList(ctx, await core.listApiKeys(ctx.core, ctx.actor, input))),

  // POST /api-keys — mint a key; the plaintext is in this response only
  create: apiProcedure
    .meta({
      secretFields: ["key"],
      openapi: {
        method: "POST",
        path: "/api-keys",
        tags,
        summary: "Create an API key",
        description:
          "Mints an API key on one of the user's teams with the scopes given. The plaintext key is in this answer only: store it, it cannot be shown again.",
      },
      sessionOnly: true,
      successStatus: 201,
    })
    .input(ApiKeyCreateInput)
    .output(ApiKeyWithSecret)
    .mutation(({ ctx, input }) => core.createApiKey(ctx.core, ctx.actor, input)),

  // DELETE /api-keys/{id} — revoke a key
  revoke: apiProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/api-keys/{id}",
        tags,
        summary: "Revoke an API key",
        description:
          "Revokes one of the user's own API keys; requests with it are refused with 401 from then on.",
      },
      sessionOnly: true,
    })
    .input(z.object({ id: IdParam }))
    .output(DeletedObject)
    .mutation(({ ctx, input }) => core.revokeApiKey(ctx.core, ctx.actor, input.id)),
});
