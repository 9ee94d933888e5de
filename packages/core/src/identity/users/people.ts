import { type DbOrTx, teamMembers, users } from "@rubricon/db";
import { and, eq, inArray } from "drizzle-orm";
import { normaliseEmail } from "./accounts";

export type Person = { id: string; name: string | null; email: string };

export async function findPersonByEmail(db: DbOrTx, email: string): Promise<Person | null> {
  const [row] = await db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(eq(users.email, normaliseEmail(email)))
    .limit(1);
  return row ?? null;
}

export async function findPersonById(db: DbOrTx, id: string): Promise<Person | null> {
  const [row] = await db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(eq(users.id, id))
    .limit(1);
  return row ?? null;
}

export async function peopleById(db: DbOrTx, ids: string[]): Promise<Map<string, Person>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(inArray(users.id, [...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r]));
}

export async function isTeamMember(db: DbOrTx, teamId: string, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ userId: teamMembers.userId })
    .from(teamMembers)
    .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
    .limit(1);
  return row !== undefined;
}

/** The members of a team, for telling them about something that happened to the team's evaluations. */
export async function teamMemberIds(db: DbOrTx, teamId: string, roles?: string[]): Promise<string[]> {
  const rows = await db
    .select({ userId: teamMembers.userId, role: teamMembers.role })
    .from(teamMembers)
    .where(eq(teamMembers.teamId, teamId));
  return rows.filter((r) => !roles || roles.includes(r.role)).map((r) => r.userId);
}
