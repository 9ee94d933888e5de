import {
  IdParam,
  PageQuery,
  Team,
  TeamCreateInput,
  TeamLeaveResult,
  TeamList,
  TeamMemberList,
  TeamUpdateInput,
  withCursorRules,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import { apiProcedure, router } from "../trpc/init";
import { toList } from "./list";

const tags = ["Teams"];
const ById = z.object({ id: IdParam });

export const teamsRouter = router({
  // GET /teams — teams the caller can act on
  list: apiProcedure
    .meta({
      openapi: { method: "GET", path: "/teams", tags, summary: "List teams" },
    })
    .input(withCursorRules(PageQuery))
    .output(TeamList)
    .query(async ({ ctx, input }) => toList(ctx, await core.listTeams(ctx.core, ctx.actor, input))),

  // POST /teams — create a team owned by the caller
  create: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/teams",
        tags,
        summary: "Create a team",
      },
      successStatus: 201,
    })
    .input(TeamCreateInput)
    .output(Team)
    .mutation(({ ctx, input }) => core.createTeam(ctx.core, ctx.actor, input)),

  // GET /teams/{id} — one team
  get: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/teams/{id}",
        tags,
        summary: "Retrieve a team",
      },
    })
    .input(ById)
    .output(Team)
    .query(({ ctx, input }) => core.getTeam(ctx.core, ctx.actor, input.id)),

  // PATCH /teams/{id} — rename or describe a team (owner or admin)
  update: apiProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/teams/{id}",
        tags,
        summary: "Update a team",
      },
    })
    .input(TeamUpdateInput.extend({ id: IdParam }))
    .output(Team)
    .mutation(({ ctx, input: { id, ...patch } }) => core.updateTeam(ctx.core, ctx.actor, id, patch)),

  // POST /teams/{id}/leave — leave a team; the last owner cannot
  leave: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/teams/{id}/leave",
        tags,
        summary: "Leave a team",
      },
      idempotent: false,
    })
    .input(z.object({ id: IdParam }).strict())
    .output(TeamLeaveResult)
    .mutation(({ ctx, input }) => core.leaveTeam(ctx.core, ctx.actor, input.id)),

  members: router({
    // GET /teams/{id}/members — the team's members and roles
    list: apiProcedure
      .meta({
        openapi: {
          method: "GET",
          path: "/teams/{id}/members",
          tags,
          summary: "List team members",
        },
      })
      .input(ById)
      .output(TeamMemberList)
      .query(async ({ ctx, input }) => {
        const data = await core.listMembers(ctx.core, ctx.actor, input.id);
        return {
          object: "list" as const,
          data,
          has_more: false,
          total_count: data.length,
        };
      }),
  }),
});
