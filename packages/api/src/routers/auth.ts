import { WhoAmI } from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import { apiProcedure, router } from "../trpc/init";

export const authRouter = router({
  // GET /auth/whoami — who the credential acts as
  whoami: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/auth/whoami",
        tags: ["Auth"],
        summary: "Identify the caller",
        description:
          "The user, team, credential kind and scopes the request's key, token or session acts as. Use it to check a key before other calls; it answers 401 for missing, revoked or expired credentials.",
      },
      unmetered: true,
    })
    .input(z.object({}).strict())
    .output(WhoAmI)
    .query(async ({ ctx }) => {
      const user = await core.getUser(ctx.core.db, ctx.actor.userId);
      const teamIds = await core.actorTeamIds(ctx.core.db, ctx.actor);
      const p = ctx.principal;
      const bound = p.kind === "api_key" || p.kind === "oauth";
      const teamId = bound
        ? p.teamId
        : ((await core.resolveTargetTeam(ctx.core.db, ctx.actor, undefined).catch(() => null))?.team.id ??
          null);
      return {
        object: "whoami" as const,
        userId: ctx.actor.userId,
        email: user?.email ?? "",
        teamId,
        teamIds,
        principal: p.kind,
        ...(bound ? { scopes: p.scopes } : {}),
      };
    }),
});
