import type { PageQuery, SharePermission } from "@rubricon/contracts";
import { type DbOrTx, evaluationShares, evaluations, invites, users } from "@rubricon/db";
import { and, eq } from "drizzle-orm";
import {
  findPersonByEmail,
  type InviteRow,
  inviteByToken,
  inviteStatus,
  issueInvite,
  isTeamMember,
  joinTeamByInvite,
  notify,
} from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, paginate } from "../../kernel";
import { loadEvaluationAccess } from "../evaluations/access";
import { grantShare } from "./sharing";

type EvaluationRow = typeof evaluations.$inferSelect;

async function hasShare(tx: DbOrTx, evaluationId: string, userId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: evaluationShares.id })
    .from(evaluationShares)
    .where(and(eq(evaluationShares.evaluationId, evaluationId), eq(evaluationShares.userId, userId)))
    .limit(1);
  return row !== undefined;
}

export function toEvaluationInvite(row: InviteRow, now: Date) {
  return {
    id: row.id,
    object: "evaluation_invite" as const,
    evaluationId: row.evaluationId!,
    email: row.email,
    permission: row.permission!,
    status: inviteStatus(row, now),
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
  };
}

/** `POST /evaluations/{id}/invites`: invite someone by email to view or edit the evaluation. */
export async function createEvaluationInvite(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  input: { email: string; permission: "VIEWER" | "EDITOR" },
) {
  return ctx.db.transaction(async (tx) => {
    const { row } = await loadEvaluationAccess(tx, actor, evaluationId, { forUpdate: true, need: "EDITOR" });
    const person = await findPersonByEmail(tx, input.email);
    if (person && (await isTeamMember(tx, row.teamId, person.id))) {
      throw new ApiError(
        "already_has_access",
        `${person.email} is a member of the team that owns this evaluation and already has access.`,
        { param: "email" },
      );
    }
    // A person the evaluation is already shared with is in its share list, which the caller can read.
    if (person && (await hasShare(tx, evaluationId, person.id))) {
      throw new ApiError(
        "already_has_access",
        `The evaluation is already shared with ${person.email}; change the share with PATCH.`,
        { param: "email" },
      );
    }
    const invite = await issueInvite(tx, ctx, actor, {
      kind: "evaluation",
      teamId: row.teamId,
      evaluationId,
      email: input.email,
      permission: input.permission,
      role: null,
      what: `the evaluation "${row.name}"`,
    });
    return toEvaluationInvite(invite, ctx.clock.now());
  });
}

/**
 * `POST /evaluations/{id}/shares` with `email`: always an invitation, whether or not the address has an account, so
 * the answer names no user and says nothing about who is registered; access comes when the person accepts. An
 * OWNER share names its person by `userId` (invitations carry VIEWER or EDITOR).
 */
export async function shareByEmail(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  input: { email: string; permission: SharePermission },
) {
  if (input.permission === "OWNER") {
    throw ApiError.invalid(
      "permission",
      "Sharing by email sends an invitation, which gives VIEWER or EDITOR; to make someone an OWNER, share with their `userId` or raise their share once they accept.",
    );
  }
  return createEvaluationInvite(ctx, actor, evaluationId, {
    email: input.email,
    permission: input.permission,
  });
}

export async function listEvaluationInvites(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  query: PageQuery,
) {
  await loadEvaluationAccess(ctx.db, actor, evaluationId, { need: "EDITOR" });
  const page = await paginate<InviteRow>({
    db: ctx.db,
    table: invites,
    resource: "invite",
    where: eq(invites.evaluationId, evaluationId),
    query,
  });
  const now = ctx.clock.now();
  return { ...page, data: page.data.map((r) => toEvaluationInvite(r, now)) };
}

/** `DELETE /evaluations/{id}/invites/{inviteId}`: the link stops working; an accepted invite is a share by now. */
export async function revokeEvaluationInvite(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  inviteId: string,
) {
  return ctx.db.transaction(async (tx) => {
    await loadEvaluationAccess(tx, actor, evaluationId, { forUpdate: true, need: "EDITOR" });
    const [row] = await tx
      .select()
      .from(invites)
      .where(and(eq(invites.id, inviteId), eq(invites.evaluationId, evaluationId)))
      .for("update")
      .limit(1);
    if (!row) throw ApiError.notFound("invite_not_found", `No such invite: ${inviteId}.`);
    if (row.status === "accepted") {
      throw new ApiError(
        "invite_already_used",
        "This invite was accepted and is now a share; remove the share with DELETE /evaluations/{id}/shares/{shareId}.",
      );
    }
    await tx
      .update(invites)
      .set({ status: "revoked", updatedAt: ctx.clock.now() })
      .where(eq(invites.id, inviteId));
    return { id: inviteId, deleted: true as const };
  });
}

/**
 * `POST /invites/{token}/accept`: the signed-in user whose email the invite was sent to becomes a share holder of
 * the evaluation, or a member of the team. Single use; expires after 14 days. Returns null when no invite has the
 * token, so the transport can count the guess.
 */
export async function acceptInvite(ctx: CoreContext, actor: Actor, token: string) {
  return ctx.db.transaction(async (tx) => {
    const invite = await inviteByToken(tx, token);
    if (!invite) return null;
    const now = ctx.clock.now();
    if (invite.status === "accepted")
      throw new ApiError("invite_already_used", "This invite has already been used.");
    if (invite.status === "revoked")
      throw new ApiError("invite_revoked", "This invite was withdrawn by its sender.");
    if (invite.expiresAt <= now) {
      throw new ApiError("invite_expired", "This invite has expired; ask for a new one.");
    }
    const [me] = await tx
      .select({ id: users.id, name: users.name, email: users.email })
      .from(users)
      .where(eq(users.id, actor.userId));
    if (!me || me.email !== invite.email) {
      throw ApiError.forbidden(
        "invite_email_mismatch",
        "This invite was sent to another email address; sign in with that address to accept it.",
      );
    }
    let shareId: string | null = null;
    let what: string;
    if (invite.kind === "evaluation") {
      const evaluation = await evaluationById(tx, invite.evaluationId!);
      const { share } = await grantShare(tx, ctx, evaluation, {
        person: me,
        permission: invite.permission as SharePermission,
        grantedBy: invite.invitedBy ?? actor.userId,
        inviteEmail: invite.email,
      });
      shareId = share.id;
      what = `the evaluation "${evaluation.name}"`;
    } else {
      await joinTeamByInvite(tx, invite, me.id, now);
      what = "your team";
    }
    await tx
      .update(invites)
      .set({ status: "accepted", acceptedBy: me.id, acceptedAt: now, updatedAt: now })
      .where(eq(invites.id, invite.id));
    if (invite.invitedBy) {
      await notify(
        tx,
        {
          userId: invite.invitedBy,
          kind: "invite.accepted",
          title: `${me.name ?? me.email} accepted your invitation to ${what}`,
          data: {
            inviteId: invite.id,
            ...(invite.evaluationId ? { evaluationId: invite.evaluationId } : { teamId: invite.teamId }),
          },
          link: invite.evaluationId
            ? `${ctx.baseUrl}/evaluations/${invite.evaluationId}`
            : `${ctx.baseUrl}/members`,
        },
        now,
      );
    }
    return {
      object: "invite_acceptance" as const,
      kind: invite.kind,
      evaluationId: invite.evaluationId,
      teamId: invite.teamId,
      shareId,
    };
  });
}

async function evaluationById(tx: DbOrTx, id: string): Promise<EvaluationRow> {
  const [row] = await tx.select().from(evaluations).where(eq(evaluations.id, id)).limit(1);
  if (!row) throw ApiError.notFound("invite_not_found", "The invite's evaluation no longer exists.");
  return row;
}
