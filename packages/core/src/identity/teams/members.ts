import type { PageQuery, TeamRole } from "@rubricon/contracts";
import { type DbOrTx, teamMembers, users } from "@rubricon/db";
import { and, asc, desc, eq, type SQL, sql } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, DEFAULT_PAGE_SIZE } from "../../kernel";
import { revokeMemberKeys } from "../api-keys/team-keys";
import { createTeamInvite } from "../invites/invites";
import { notify } from "../notifications/notify";
import { findPersonByEmail, isTeamMember } from "../users/people";
import { findMembership, type Membership, requireRole } from "./access";

type MemberRow = { member: typeof teamMembers.$inferSelect; email: string; name: string | null };

function toMember(r: MemberRow) {
  return {
    id: r.member.userId,
    object: "team_member" as const,
    userId: r.member.userId,
    teamId: r.member.teamId,
    email: r.email,
    name: r.name,
    role: r.member.role,
    createdAt: r.member.createdAt.toISOString(),
  };
}

async function membershipOr404(db: DbOrTx, actor: Actor, teamId: string): Promise<Membership> {
  const membership = await findMembership(db, actor, teamId);
  if (!membership) throw ApiError.notFound("team_not_found", `No such team: ${teamId}.`);
  return membership;
}

function selectMembers(db: DbOrTx) {
  return db
    .select({ member: teamMembers, email: users.email, name: users.name })
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId));
}

/**
 * `GET /teams/{id}/members`: newest member first, from the `(team_id, created_at desc, user_id desc)` index. A
 * cursor is a member's user id.
 */
export async function listMembersPage(ctx: CoreContext, actor: Actor, teamId: string, query: PageQuery) {
  await membershipOr404(ctx.db, actor, teamId);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const cursorId = query.starting_after ?? query.cursor ?? query.ending_before;
  const backwards = query.ending_before !== undefined;
  let keyset: SQL | undefined;
  if (cursorId !== undefined) {
    const [at] = await ctx.db
      .select({ userId: teamMembers.userId })
      .from(teamMembers)
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, cursorId)))
      .limit(1);
    if (!at) {
      throw ApiError.invalid(
        query.starting_after ? "starting_after" : query.cursor ? "cursor" : "ending_before",
        `No member '${cursorId}' in this team; cursors are user ids from an earlier page of the same list.`,
        "invalid_cursor",
      );
    }
    // The sort key is read in SQL, so no precision is lost to a JavaScript Date.
    const sortKey = sql`(select m.created_at from team_members m where m.team_id = ${teamId} and m.user_id = ${cursorId})`;
    keyset = backwards
      ? sql`(${teamMembers.createdAt}, ${teamMembers.userId}) > (${sortKey}, ${cursorId})`
      : sql`(${teamMembers.createdAt}, ${teamMembers.userId}) < (${sortKey}, ${cursorId})`;
  }
  const rows = await selectMembers(ctx.db)
    .where(and(eq(teamMembers.teamId, teamId), keyset))
    .orderBy(
      ...(backwards
        ? [asc(teamMembers.createdAt), asc(teamMembers.userId)]
        : [desc(teamMembers.createdAt), desc(teamMembers.userId)]),
    )
    .limit(limit + 1);
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  return { data: page.map(toMember), hasMore, usedLegacyCursor: query.cursor !== undefined };
}

function requireUserActor(actor: Actor): void {
  if (actor.boundTeamId) {
    throw new ApiError("session_required", "Only a signed-in user can manage a team's members.");
  }
}

/** Owners and admins manage members; only owners make, unmake or remove owners. */
function assertMayManage(me: Membership, role: TeamRole): void {
  requireRole(me, ["owner", "admin"], "manage the team's members");
  if (role === "owner" && me.role !== "owner") {
    throw new ApiError("insufficient_role", "Only a team owner can add, change or remove owners.");
  }
}

async function lockOwners(tx: DbOrTx, teamId: string): Promise<string[]> {
  const owners = await tx
    .select({ userId: teamMembers.userId })
    .from(teamMembers)
    .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.role, "owner")))
    .for("update");
  return owners.map((o) => o.userId);
}

async function loadMember(tx: DbOrTx, teamId: string, userId: string): Promise<MemberRow> {
  const [row] = await selectMembers(tx)
    .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
    .for("update", { of: teamMembers })
    .limit(1);
  if (!row) throw ApiError.notFound("member_not_found", `No member ${userId} in team ${teamId}.`);
  return row;
}

/**
 * `POST /teams/{id}/members`: e-mails an invitation that makes the person a member when they accept it, whether or
 * not the address has an account, so the answer says nothing about who is registered and nobody joins a team (or
 * gets its mail) without saying yes. Someone already in the team is refused: the caller can list its members.
 */
export async function addMember(
  ctx: CoreContext,
  actor: Actor,
  teamId: string,
  input: { email: string; role: TeamRole },
) {
  requireUserActor(actor);
  return ctx.db.transaction(async (tx) => {
    const me = await membershipOr404(tx, actor, teamId);
    assertMayManage(me, input.role);
    const person = await findPersonByEmail(tx, input.email);
    if (person && (await isTeamMember(tx, teamId, person.id))) {
      throw new ApiError("already_member", `${person.email} is already a member of this team.`, {
        param: "email",
      });
    }
    return createTeamInvite(tx, ctx, actor, me.team, input);
  });
}

/** `PATCH /teams/{id}/members/{userId}`: change a role; the last owner cannot be demoted. */
export async function updateMember(
  ctx: CoreContext,
  actor: Actor,
  teamId: string,
  userId: string,
  input: { role: TeamRole },
) {
  requireUserActor(actor);
  return ctx.db.transaction(async (tx) => {
    const me = await membershipOr404(tx, actor, teamId);
    const owners = await lockOwners(tx, teamId);
    const target = await loadMember(tx, teamId, userId);
    assertMayManage(me, input.role);
    assertMayManage(me, target.member.role);
    if (target.member.role === "owner" && input.role !== "owner" && owners.length <= 1) {
      throw new ApiError(
        "last_owner_required",
        "This is the team's last owner; make another member an owner first.",
        { param: "role" },
      );
    }
    const [updated] = await tx
      .update(teamMembers)
      .set({ role: input.role })
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
      .returning();
    return toMember({ ...target, member: updated! });
  });
}

/**
 * `DELETE /teams/{id}/members/{userId}`: removes a member and revokes their API keys on the team, as leaving does
 * (docs/decisions/). Anyone may remove themselves; the last owner cannot be removed.
 */
export async function removeMember(ctx: CoreContext, actor: Actor, teamId: string, userId: string) {
  requireUserActor(actor);
  return ctx.db.transaction(async (tx) => {
    const me = await membershipOr404(tx, actor, teamId);
    const owners = await lockOwners(tx, teamId);
    const target = await loadMember(tx, teamId, userId);
    if (userId !== actor.userId) assertMayManage(me, target.member.role);
    if (target.member.role === "owner" && owners.length <= 1) {
      throw new ApiError(
        "last_owner_required",
        "This is the team's last owner; make another member an owner first.",
      );
    }
    await tx.delete(teamMembers).where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)));
    const revokedApiKeys = await revokeMemberKeys(tx, teamId, userId, ctx.clock.now());
    return { object: "team_member_removal" as const, teamId, userId, removed: true as const, revokedApiKeys };
  });
}

/**
 * `POST /teams/{id}/transfer-admin`: an owner hands the team to another member in one step: the member becomes an
 * owner and the caller an admin, in one transaction, so the team never has no owner nor two by accident.
 */
export async function transferTeamAdmin(ctx: CoreContext, actor: Actor, teamId: string, userId: string) {
  requireUserActor(actor);
  return ctx.db.transaction(async (tx) => {
    const me = await membershipOr404(tx, actor, teamId);
    if (me.role !== "owner") {
      throw new ApiError("insufficient_role", "Only a team owner can hand the team to another member.", {
        details: { role: me.role, required: "owner" },
      });
    }
    if (userId === actor.userId) {
      throw ApiError.invalid("userId", "You already own this team; name the member who should take it over.");
    }
    // The role read above may be stale: a concurrent transfer by the same owner may have committed meanwhile.
    // Once the owners' rows are locked, the caller's own row, read again, says whether it still owns the team.
    await lockOwners(tx, teamId);
    const self = await loadMember(tx, teamId, actor.userId);
    if (self.member.role !== "owner") {
      throw new ApiError("insufficient_role", "Only a team owner can hand the team to another member.", {
        details: { role: self.member.role, required: "owner" },
      });
    }
    const target = await loadMember(tx, teamId, userId);
    const [to] = await tx
      .update(teamMembers)
      .set({ role: "owner" })
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
      .returning();
    const [from] = await tx
      .update(teamMembers)
      .set({ role: "admin" })
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, actor.userId)))
      .returning();
    const now = ctx.clock.now();
    await notify(
      tx,
      {
        userId,
        kind: "team.ownership_transferred",
        title: `You now own the team "${me.team.name}"`,
        body: `${self.name ?? self.email} handed the team to you and stays on as an admin.`,
        data: { teamId },
        link: `${ctx.baseUrl}/members`,
        email: true,
      },
      now,
    );
    return {
      object: "team_admin_transfer" as const,
      teamId,
      previousOwner: toMember({ ...self, member: from! }),
      newOwner: toMember({ ...target, member: to! }),
    };
  });
}
