import { evaluationShares, evaluations, teamMembers, users } from "@rubricon/db";
import { and, eq, exists, or } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { CoreContext } from "../../kernel";
import { ApiError } from "../../kernel";
import { normaliseEmail } from "./accounts";

/**
 * `GET /users/lookup?email=`: the user with exactly this email, among the people the caller already works with: a
 * member of one of the caller's teams, or someone on an evaluation the caller is on too (its team or its shares).
 * Anyone else is answered exactly as an address with no account is (the same 404, from the same single query), so
 * the route cannot tell a stranger whether an account exists. Sharing with a new person goes by email instead.
 */
export async function lookupUser(ctx: CoreContext, callerId: string, email: string) {
  const mine = alias(teamMembers, "mine");
  const theirs = alias(teamMembers, "theirs");
  const myShare = alias(evaluationShares, "my_share");
  const theirShare = alias(evaluationShares, "their_share");
  const db = ctx.db;
  const [person] = await db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(
      and(
        eq(users.email, normaliseEmail(email)),
        or(
          eq(users.id, callerId),
          // A team in common.
          exists(
            db
              .select({ one: mine.userId })
              .from(mine)
              .innerJoin(theirs, eq(theirs.teamId, mine.teamId))
              .where(and(eq(mine.userId, callerId), eq(theirs.userId, users.id))),
          ),
          // Both shared on one evaluation.
          exists(
            db
              .select({ one: myShare.id })
              .from(myShare)
              .innerJoin(theirShare, eq(theirShare.evaluationId, myShare.evaluationId))
              .where(and(eq(myShare.userId, callerId), eq(theirShare.userId, users.id))),
          ),
          // They are shared on an evaluation of one of the caller's teams, or the other way round.
          exists(
            db
              .select({ one: theirShare.id })
              .from(theirShare)
              .innerJoin(evaluations, eq(evaluations.id, theirShare.evaluationId))
              .innerJoin(mine, eq(mine.teamId, evaluations.teamId))
              .where(and(eq(theirShare.userId, users.id), eq(mine.userId, callerId))),
          ),
          exists(
            db
              .select({ one: myShare.id })
              .from(myShare)
              .innerJoin(evaluations, eq(evaluations.id, myShare.evaluationId))
              .innerJoin(theirs, eq(theirs.teamId, evaluations.teamId))
              .where(and(eq(myShare.userId, callerId), eq(theirs.userId, users.id))),
          ),
        ),
      ),
    )
    .limit(1);
  if (!person) {
    throw new ApiError(
      "user_not_found",
      `No one you share a team or an evaluation with has the email ${email}.`,
      { param: "email" },
    );
  }
  return { object: "user" as const, id: person.id, name: person.name, email: person.email };
}
