import { LATEST_API_VERSION } from "@rubricon/contracts";
import { type Db, newId, sessions, teamMembers, teams, users } from "@rubricon/db";
import { and, eq, gt } from "drizzle-orm";
import type { CoreContext } from "../../kernel";
import {
  ApiError,
  hashPassword,
  needsRehash,
  randomToken,
  sha256Hex,
  unmatchableHash,
  verifyPassword,
} from "../../kernel";

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export type UserRow = typeof users.$inferSelect;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  const [row] = await db
    .select()
    .from(users)
    .where(eq(users.email, normaliseEmail(email)))
    .limit(1);
  return row ?? null;
}

/** Creates a user with a personal team on the Free plan, owned by them. */
export async function createUser(
  ctx: CoreContext,
  input: { email: string; password: string; name?: string | null },
): Promise<{ user: UserRow; teamId: string }> {
  const email = normaliseEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [existing] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
    if (existing)
      throw ApiError.invalid("email", "An account with this email already exists.", "email_taken");
    const [user] = await tx
      .insert(users)
      .values({
        id: newId("user"),
        email,
        name: input.name ?? null,
        passwordHash,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (!user) throw ApiError.invalid("email", "An account with this email already exists.", "email_taken");
    const teamId = newId("team");
    const label = input.name?.trim() || email.split("@")[0];
    await tx.insert(teams).values({
      id: teamId,
      name: `${label}'s team`,
      plan: ctx.newTeamPlan ?? "free",
      apiVersion: LATEST_API_VERSION,
      personalOwnerId: user.id,
      createdAt: now,
      updatedAt: now,
    });
    await tx.insert(teamMembers).values({ teamId, userId: user.id, role: "owner", createdAt: now });
    return { user, teamId };
  });
}

export async function authenticatePassword(db: Db, email: string, password: string): Promise<UserRow> {
  const user = await findUserByEmail(db, email);
  // Verify against a dummy hash when the user is unknown, so timing does not reveal which emails exist.
  const ok = await verifyPassword(password, user?.passwordHash ?? unmatchableHash());
  if (!user?.passwordHash || !ok) {
    throw new ApiError("invalid_credentials", "Email or password is incorrect.");
  }
  // A hash made at an older cost is replaced now, while the password is at hand.
  if (needsRehash(user.passwordHash)) {
    const passwordHash = await hashPassword(password);
    await db.update(users).set({ passwordHash }).where(eq(users.id, user.id));
    return { ...user, passwordHash };
  }
  return user;
}

/** Starts a session; answers the cookie value, which is stored only as its sha256. */
export async function createSession(
  ctx: CoreContext,
  userId: string,
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken(32);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await ctx.db.insert(sessions).values({
    id: newId("session"),
    userId,
    tokenHash: sha256Hex(token),
    createdAt: now,
    expiresAt,
  });
  return { token, expiresAt };
}

export async function findSessionUser(
  ctx: CoreContext,
  token: string,
): Promise<{ sessionId: string; user: UserRow } | null> {
  const [row] = await ctx.db
    .select({ sessionId: sessions.id, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, sha256Hex(token)), gt(sessions.expiresAt, ctx.clock.now())))
    .limit(1);
  return row ?? null;
}

export async function deleteSession(db: Db, token: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.tokenHash, sha256Hex(token)));
}

export async function getUser(db: Db, userId: string): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(eq(users.id, userId)).limit(1);
  return row ?? null;
}
