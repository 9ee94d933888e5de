import type { EvaluationShare, PageQuery, SharePermission } from "@rubricon/contracts";
import { type DbOrTx, evaluationShares, newId, teamMembers } from "@rubricon/db";
import { and, count, eq, ne } from "drizzle-orm";
import {
  findPersonByEmail,
  findPersonById,
  isTeamMember,
  notify,
  type Person,
  peopleById,
} from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, paginate, recordTombstone } from "../../kernel";
import { type AccessLevel, allows, loadEvaluationAccess } from "../evaluations/access";
import type { EvaluationRow } from "../evaluations/serialize";

type ShareRow = typeof evaluationShares.$inferSelect;

export function toShare(row: ShareRow, person: Person | undefined): EvaluationShare {
  return {
    id: row.id,
    object: "evaluation_share",
    evaluationId: row.evaluationId,
    permission: row.permission,
    userId: row.userId,
    inviteEmail: row.inviteEmail,
    user: person ? { id: person.id, name: person.name, email: person.email } : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Editors share as viewers and editors; making or unmaking an owner takes an owner. */
function assertMayGrant(evaluationId: string, access: AccessLevel, permission: SharePermission): void {
  if (permission === "OWNER" && !allows(access, "OWNER")) {
    throw ApiError.forbidden(
      "insufficient_permission",
      `Evaluation ${evaluationId} is shared with you as ${access}; only its owners can add or change owners.`,
      { permission: access, required: "OWNER" },
    );
  }
}

/** `GET /evaluations/{id}/shares`: the people outside the team who have access; anyone with access may see them. */
export async function listShares(ctx: CoreContext, actor: Actor, evaluationId: string, query: PageQuery) {
  await loadEvaluationAccess(ctx.db, actor, evaluationId, { need: "VIEWER" });
  const page = await paginate<ShareRow>({
    db: ctx.db,
    table: evaluationShares,
    resource: "evaluation_share",
    where: eq(evaluationShares.evaluationId, evaluationId),
    query,
  });
  const people = await peopleById(
    ctx.db,
    page.data.map((r) => r.userId),
  );
  return { ...page, data: page.data.map((r) => toShare(r, people.get(r.userId))) };
}

/**
 * Gives `person` access to the evaluation, or raises an existing share to `permission` (never lowers it: an
 * accepted invite or approved request must not take away what the person had). Tells them, by notification
 * and email. Members of the owning team already have access and are refused.
 */
export async function grantShare(
  tx: DbOrTx,
  ctx: CoreContext,
  evaluation: EvaluationRow,
  grant: {
    person: Person;
    permission: SharePermission;
    grantedBy: string;
    inviteEmail?: string | null;
    /** The caller tells the person itself (an approved access request). */
    silent?: boolean;
  },
): Promise<{ share: ShareRow; created: boolean }> {
  if (await isTeamMember(tx, evaluation.teamId, grant.person.id)) {
    throw new ApiError(
      "already_has_access",
      `${grant.person.email} is a member of the team that owns this evaluation and already has access.`,
    );
  }
  const now = ctx.clock.now();
  const [existing] = await tx
    .select()
    .from(evaluationShares)
    .where(
      and(eq(evaluationShares.evaluationId, evaluation.id), eq(evaluationShares.userId, grant.person.id)),
    )
    .for("update")
    .limit(1);
  if (existing) {
    if (allows(existing.permission, grant.permission)) return { share: existing, created: false };
    const [raised] = await tx
      .update(evaluationShares)
      .set({ permission: grant.permission, updatedAt: now })
      .where(eq(evaluationShares.id, existing.id))
      .returning();
    return { share: raised!, created: false };
  }
  const [share] = await tx
    .insert(evaluationShares)
    .values({
      id: newId("share"),
      evaluationId: evaluation.id,
      userId: grant.person.id,
      permission: grant.permission,
      inviteEmail: grant.inviteEmail ?? null,
      grantedBy: grant.grantedBy,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (grant.silent) return { share: share!, created: true };
  await notify(
    tx,
    {
      userId: grant.person.id,
      kind: "evaluation.shared",
      title: `"${evaluation.name}" was shared with you`,
      body: `You can now open it as ${grant.permission.toLowerCase()}.`,
      data: { evaluationId: evaluation.id, shareId: share!.id },
      link: `${ctx.baseUrl}/evaluations/${evaluation.id}`,
      email: true,
    },
    now,
  );
  return { share: share!, created: true };
}

/** `POST /evaluations/{id}/shares`: share with an existing user, named by id or exact email. */
export async function createShare(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  input: { userId?: string; email?: string; permission: SharePermission },
): Promise<EvaluationShare> {
  if ((input.userId === undefined) === (input.email === undefined)) {
    throw ApiError.invalid(
      input.userId === undefined ? "email" : "userId",
      "Give exactly one of `userId` or `email`.",
      input.userId === undefined ? "parameter_missing" : "parameter_invalid",
    );
  }
  return ctx.db.transaction(async (tx) => {
    const { row, access } = await loadEvaluationAccess(tx, actor, evaluationId, {
      forUpdate: true,
      need: "EDITOR",
    });
    assertMayGrant(evaluationId, access, input.permission);
    const person = input.userId
      ? await findPersonById(tx, input.userId)
      : await findPersonByEmail(tx, input.email!);
    if (!person) {
      throw new ApiError(
        "user_not_found",
        input.email
          ? `No user has the email ${input.email}; invite them with POST /evaluations/${evaluationId}/invites.`
          : `No such user: ${input.userId}.`,
        { param: input.userId ? "userId" : "email" },
      );
    }
    const [existing] = await tx
      .select({ id: evaluationShares.id })
      .from(evaluationShares)
      .where(and(eq(evaluationShares.evaluationId, evaluationId), eq(evaluationShares.userId, person.id)))
      .limit(1);
    if (existing) {
      throw new ApiError(
        "already_has_access",
        `The evaluation is already shared with ${person.email} (${existing.id}); change it with PATCH.`,
      );
    }
    const { share } = await grantShare(tx, ctx, row, {
      person,
      permission: input.permission,
      grantedBy: actor.userId,
    });
    return toShare(share, person);
  });
}

async function loadShare(tx: DbOrTx, evaluationId: string, shareId: string): Promise<ShareRow> {
  const [share] = await tx
    .select()
    .from(evaluationShares)
    .where(and(eq(evaluationShares.id, shareId), eq(evaluationShares.evaluationId, evaluationId)))
    .for("update")
    .limit(1);
  if (!share) throw ApiError.notFound("share_not_found", `No such share: ${shareId}.`);
  return share;
}

/**
 * An evaluation always keeps an owner: the members of its team, else an OWNER share. Removing or demoting the
 * last OWNER share of an evaluation whose team has no members left is refused.
 */
async function assertOwnerRemains(tx: DbOrTx, evaluation: EvaluationRow, share: ShareRow): Promise<void> {
  if (share.permission !== "OWNER") return;
  const [others] = await tx
    .select({ n: count() })
    .from(evaluationShares)
    .where(
      and(
        eq(evaluationShares.evaluationId, evaluation.id),
        eq(evaluationShares.permission, "OWNER"),
        ne(evaluationShares.id, share.id),
      ),
    );
  if ((others?.n ?? 0) > 0) return;
  const [members] = await tx
    .select({ n: count() })
    .from(teamMembers)
    .where(eq(teamMembers.teamId, evaluation.teamId));
  if ((members?.n ?? 0) > 0) return;
  throw new ApiError(
    "last_owner_required",
    "This is the evaluation's last owner; make someone else an owner first.",
  );
}

/** `PATCH /evaluations/{id}/shares/{shareId}`: change a share's permission. */
export async function updateShare(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  shareId: string,
  input: { permission: SharePermission },
): Promise<EvaluationShare> {
  return ctx.db.transaction(async (tx) => {
    const { row, access } = await loadEvaluationAccess(tx, actor, evaluationId, {
      forUpdate: true,
      need: "EDITOR",
    });
    const share = await loadShare(tx, evaluationId, shareId);
    assertMayGrant(evaluationId, access, input.permission);
    assertMayGrant(evaluationId, access, share.permission);
    if (input.permission !== "OWNER") await assertOwnerRemains(tx, row, share);
    const [updated] = await tx
      .update(evaluationShares)
      .set({ permission: input.permission, updatedAt: ctx.clock.now() })
      .where(eq(evaluationShares.id, shareId))
      .returning();
    const people = await peopleById(tx, [updated!.userId]);
    return toShare(updated!, people.get(updated!.userId));
  });
}

/** `DELETE /evaluations/{id}/shares/{shareId}`: owners and editors remove others; anyone may remove their own. */
export async function deleteShare(ctx: CoreContext, actor: Actor, evaluationId: string, shareId: string) {
  return ctx.db.transaction(async (tx) => {
    const { row, access } = await loadEvaluationAccess(tx, actor, evaluationId, {
      forUpdate: true,
      need: "VIEWER",
    });
    const share = await loadShare(tx, evaluationId, shareId);
    const ownShare = !actor.boundTeamId && share.userId === actor.userId;
    if (!ownShare) {
      if (!allows(access, "EDITOR")) {
        throw ApiError.forbidden(
          "insufficient_permission",
          `Evaluation ${evaluationId} is shared with you as ${access}; only its owners and editors manage who has access.`,
          { permission: access, required: "EDITOR" },
        );
      }
      assertMayGrant(evaluationId, access, share.permission);
    }
    await assertOwnerRemains(tx, row, share);
    await recordTombstone(tx, evaluationShares, "evaluation_share", [shareId]);
    await tx.delete(evaluationShares).where(eq(evaluationShares.id, shareId));
    return { id: shareId, deleted: true as const };
  });
}
