import { type DbOrTx, evaluations, teams, users } from "@rubricon/db";
import { eq } from "drizzle-orm";
import type { Actor } from "../shared/context";
import { ApiError } from "../shared/errors";
import { findMembership } from "../teams/access";
import type { EvaluationRow } from "./serialize";

export function evaluationNotFound(id: string): ApiError {
  return ApiError.notFound("evaluation_not_found", `No such evaluation: ${id}.`);
}

/**
 * The evaluation if the actor may see it. Not-found and no-permission are the same 404, except for a signed-in
 * user opening a link-shared evaluation of another team: 403 evaluation_no_access, so they can ask for access.
 */
export async function loadVisibleEvaluation(
  db: DbOrTx,
  actor: Actor,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<EvaluationRow> {
  const query = db.select().from(evaluations).where(eq(evaluations.id, id)).limit(1);
  const [row] = opts.forUpdate ? await query.for("update") : await query;
  if (!row) throw evaluationNotFound(id);
  const membership = await findMembership(db, actor, row.teamId);
  if (membership) return row;
  if (actor.principal === "session" && row.shareAccess === "ANYONE_WITH_LINK" && row.status !== "Draft") {
    const [team] = await db.select({ name: teams.name }).from(teams).where(eq(teams.id, row.teamId)).limit(1);
    const [user] = await db
      .select({ email: users.email })
      .from(users)
      .where(eq(users.id, actor.userId))
      .limit(1);
    throw ApiError.forbidden(
      "evaluation_no_access",
      "You are not a member of the team that owns this evaluation; you can request access.",
      {
        teamName: team?.name ?? null,
        callerEmail: user?.email ?? null,
      },
    );
  }
  throw evaluationNotFound(id);
}
