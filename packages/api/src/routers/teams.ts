import {
  IdParam,
  PageQuery,
  PageQueryShape,
  Team,
  TeamAdminTransfer,
  TeamAdminTransferInput,
  TeamCreateInput,
  TeamLeaveResult,
  TeamList,
  TeamMember,
  TeamMemberAddInput,
  TeamMemberAddResult,
  TeamMemberList,
  TeamMemberRemoval,
  TeamMemberUpdateInput,
  TeamUpdateInput,
  UserLookup,
  UserLookupQuery,
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
      openapi: {
        method: "GET",
        path: "/teams",
        tags,
        summary: "List teams",
        description:
          "The teams the caller can act on: a user's teams with their role, or the single team of an API key or token.",
      },
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
        description: "Creates a team owned by the caller, on the deployment's default plan.",
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
        description:
          "One team the caller belongs to, with its plan and the caller's role; 404 for teams the caller is not in.",
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
        description:
          "Renames a team or changes its description. Owners and admins only (else 403 `insufficient_role`).",
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
        description:
          "Removes the caller from the team and revokes the caller's API keys on it. The last owner cannot leave (400 `last_owner_cannot_leave`): hand ownership over first.",
      },
      idempotent: false,
    })
    .input(z.object({ id: IdParam }).strict())
    .output(TeamLeaveResult)
    .mutation(({ ctx, input }) => core.leaveTeam(ctx.core, ctx.actor, input.id)),

  // POST /teams/{id}/transfer-admin — the owner hands the team to another member
  transferAdmin: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/teams/{id}/transfer-admin",
        tags,
        summary: "Hand the team to another member",
        description:
          "Makes the member `userId` an owner and the caller an admin, in one step. Owners only (else 403 " +
          "`insufficient_role`); `userId` must be another member of the team (404 `member_not_found`; yourself is " +
          "400 naming `userId`). The new owner is notified.",
      },
      sessionOnly: true,
    })
    .input(TeamAdminTransferInput.extend({ id: IdParam }))
    .output(TeamAdminTransfer)
    .mutation(({ ctx, input }) => core.transferTeamAdmin(ctx.core, ctx.actor, input.id, input.userId)),

  members: router({
    // GET /teams/{id}/members — the team's members and roles, newest first
    list: apiProcedure
      .meta({
        openapi: {
          method: "GET",
          path: "/teams/{id}/members",
          tags,
          summary: "List team members",
          description: "Newest member first; a cursor is a member's `userId`.",
        },
      })
      .input(withCursorRules(z.object({ id: IdParam, ...PageQueryShape })))
      .output(TeamMemberList)
      .query(async ({ ctx, input: { id, ...query } }) => {
        const page = await core.listMembersPage(ctx.core, ctx.actor, id, query);
        return toList(ctx, { ...page, totalCount: await core.countTeamMembers(ctx.core.db, id) });
      }),

    // POST /teams/{id}/members — add a user by email, or invite someone without an account
    add: apiProcedure
      .meta({
        openapi: {
          method: "POST",
          path: "/teams/{id}/members",
          tags,
          summary: "Invite a team member",
          description:
            "Owners and admins (only owners invite owners). Every address gets an e-mailed invitation (201 " +
            "`team_invite`), valid for 14 days, that makes the person a member when they accept it: the answer is " +
            "the same whether or not the address has an account, and nobody joins without saying yes. Inviting the " +
            "same address again within a day sends no second e-mail; its first invitation's link works again.",
        },
        sessionOnly: true,
        successStatus: 201,
      })
      .input(TeamMemberAddInput.extend({ id: IdParam }))
      .output(TeamMemberAddResult)
      .mutation(({ ctx, input: { id, ...body } }) => core.addMember(ctx.core, ctx.actor, id, body)),

    // PATCH /teams/{id}/members/{userId} — change a member's role; the last owner stays an owner
    update: apiProcedure
      .meta({
        openapi: {
          method: "PATCH",
          path: "/teams/{id}/members/{userId}",
          tags,
          summary: "Change a member's role",
          description:
            "Changes a member's role. Owners and admins only (else 403 `insufficient_role`), and only owners grant or take away ownership; the last owner stays an owner (400 `last_owner_required`).",
        },
        sessionOnly: true,
      })
      .input(TeamMemberUpdateInput.extend({ id: IdParam, userId: IdParam }))
      .output(TeamMember)
      .mutation(({ ctx, input: { id, userId, ...body } }) =>
        core.updateMember(ctx.core, ctx.actor, id, userId, body),
      ),

    // DELETE /teams/{id}/members/{userId} — remove a member and revoke their API keys on the team
    remove: apiProcedure
      .meta({
        openapi: {
          method: "DELETE",
          path: "/teams/{id}/members/{userId}",
          tags,
          summary: "Remove a team member",
          description: "Revokes the member's API keys on the team. The last owner cannot be removed.",
        },
        sessionOnly: true,
      })
      .input(z.object({ id: IdParam, userId: IdParam }))
      .output(TeamMemberRemoval)
      .mutation(({ ctx, input }) => core.removeMember(ctx.core, ctx.actor, input.id, input.userId)),
  }),
});

export const usersRouter = router({
  // GET /users/lookup?email= — find a user to share with, by exact email
  lookup: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/users/lookup",
        tags,
        summary: "Look up a user by email",
        description:
          "Exact email matches only, for signed-in users, at most 30 lookups a minute; answers id, name and email " +
          "of someone you share a team or an evaluation with. Anyone else is the same 404 `user_not_found` as an " +
          "address without an account; share with a new person by email instead.",
      },
      sessionOnly: true,
      routeLimit: { key: "user", limit: 30, windowSec: 60 },
    })
    .input(UserLookupQuery)
    .output(UserLookup)
    .query(({ ctx, input }) => core.lookupUser(ctx.core, ctx.actor.userId, input.email)),
});
