import { autousers, type DbOrTx, teamMembers } from "@rubricon/db";
import { and, eq, inArray, or, type SQL } from "drizzle-orm";
import { findMembership, type Membership, resolveTargetTeam } from "../../identity";
import type { Actor } from "../../kernel";
import { ApiError } from "../../kernel";
import type { AutouserRow } from "./serialize";

export interface TeamView {
  teamId: string;
  role: Membership["role"];
}

export function autouserNotFound(id: string): ApiError {
  return ApiError.notFound("autouser_not_found", `No such autouser: ${id}.`);
}

/** The teams whose autousers the actor lists, with its role in each (the role decides what private means). */
export async function viewerTeams(db: DbOrTx, actor: Actor, teamId?: string): Promise<TeamView[]> {
  if (teamId !== undefined || actor.boundTeamId) {
    const { team, role } = await resolveTargetTeam(db, actor, teamId);
    return [{ teamId: team.id, role }];
  }
  return db
    .select({ teamId: teamMembers.teamId, role: teamMembers.role })
    .from(teamMembers)
    .where(eq(teamMembers.userId, actor.userId));
}

const seesPrivate = (role: Membership["role"]) => role === "owner" || role === "admin";

/**
 * Team autousers the actor sees: every one in teams it owns or administers; elsewhere the public ones and its own
 * private ones.
 */
export function visibleTeamAutousers(views: TeamView[], userId: string): SQL | undefined {
  const managed = views.filter((v) => seesPrivate(v.role)).map((v) => v.teamId);
  const member = views.filter((v) => !seesPrivate(v.role)).map((v) => v.teamId);
  const parts = [
    managed.length > 0 ? inArray(autousers.teamId, managed) : undefined,
    member.length > 0
      ? and(
          inArray(autousers.teamId, member),
          or(eq(autousers.visibility, "public"), eq(autousers.createdBy, userId)),
        )
      : undefined,
  ].filter((p): p is SQL => p !== undefined);
  return parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : or(...parts);
}

/** Whether someone of `role` in the autouser's team sees it. */
export function canSee(row: AutouserRow, userId: string, role: Membership["role"]): boolean {
  return row.visibility === "public" || row.createdBy === userId || seesPrivate(role);
}

/** An autouser the actor may see: a system one, or a team one it can act on and whose visibility lets it. */
export async function loadVisibleAutouser(
  db: DbOrTx,
  actor: Actor,
  id: string,
  forUpdate = false,
): Promise<AutouserRow> {
  const query = db.select().from(autousers).where(eq(autousers.id, id)).limit(1);
  const [row] = forUpdate ? await query.for("update") : await query;
  if (!row) throw autouserNotFound(id);
  if (row.isSystem) return row;
  const membership = row.teamId ? await findMembership(db, actor, row.teamId) : null;
  if (!membership || !canSee(row, actor.userId, membership.role)) throw autouserNotFound(id);
  return row;
}

/** System personas are shared by every team, so none may change them; a team copy can. */
export function assertEditable(row: AutouserRow): void {
  if (row.isSystem) {
    throw new ApiError(
      "autouser_read_only",
      `System autouser ${row.id} is read-only; duplicate it (POST /autousers/${row.id}/duplicate) to make a copy your team can edit.`,
      { details: { duplicatePath: `/autousers/${row.id}/duplicate` } },
    );
  }
}
