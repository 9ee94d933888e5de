import { ClientIdParam, ConnectedAppList, DisconnectedApp } from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import { apiProcedure, router } from "../trpc/init";

const tags = ["OAuth"];

export const oauthRouter = router({
  // GET /oauth/connected-apps — apps holding a grant of the signed-in user
  listConnectedApps: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/oauth/connected-apps",
        tags,
        summary: "List connected apps",
        description:
          "Third-party apps you authorized, with the teams, scopes and resources (REST API, MCP server) of their " +
          "grants. A signed-in session only.",
      },
      sessionOnly: true,
    })
    .input(z.object({}).strict().optional())
    .output(ConnectedAppList)
    .query(async ({ ctx }) => ({
      object: "list" as const,
      data: await core.listConnectedApps(ctx.core, ctx.actor),
      has_more: false as const,
    })),

  // DELETE /oauth/connected-apps/{clientId} — disconnect an app
  disconnect: apiProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/oauth/connected-apps/{clientId}",
        tags,
        summary: "Disconnect an app",
        description:
          "Ends every grant you gave the app: its refresh tokens stop refreshing and its access tokens stop " +
          "working at once. A signed-in session only.",
      },
      sessionOnly: true,
    })
    .input(ClientIdParam)
    .output(DisconnectedApp)
    .mutation(({ ctx, input }) => core.disconnectApp(ctx.core, ctx.actor, input.clientId)),
});
