import { timingSafeEqual } from "node:crypto";
import type { PageQuery, SharePermission, TeamRole } from "@rubricon/contracts";
import { type DbOrTx, evaluations, invites, newId, teamMembers, users } from "@rubricon/db";
import { and, eq } from "drizzle-orm";
import { enqueueEmail } from "../email/outbox";
import { loadEvaluationAccess } from "../evaluations/access";
import { notify } from "../notifications/notify";
import { paginate } from "../pagination/paginate";
import type { Actor, CoreContext } from "../shared/context";
import { randomToken, sha256Hex } from "../shared/crypto";
import { ApiError } from "../shared/errors";
import { findPersonByEmail, isTeamMember } from "../shares/people";
import { grantShare } from "../shares/shares";
import { normaliseEmail } from "../users/accounts";

export const INVITE_TTL_MS = 14 * 24 * 60 * 60 * 1000;

type InviteRow = typeof invites.$inferSelect;
type EvaluationRow = typeof evaluations.$inferSelect;

function statusOf(row: InviteRow, now: Date) {
  return row.status === "pending" && row.expiresAt <= now ? ("expired" as const) : row.status;
}

export function toEvaluationInvite(row: InviteRow, now: Date) {
  return {
    id: row.id,
    object: "evaluation_invite" as const,
    evaluationId: row.evaluationId!,
    email: row.email,
    permission: row.permission!,
    status: statusOf(row, now),
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
  };
}

export function toTeamInvite(row: InviteRow, now: Date) {
  return {
    id: row.id,
    object: "team_invite" as const,
    teamId: row.teamId,
    email: row.email,
    role: row.role!,
    status: statusOf(row, now),
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
  };
}

async function inviterName(tx: DbOrTx, userId: string): Promise<string> {
  const [u] = await tx
    .select({ name: users.name, email: users.email })
    .from(users)
    .where(eq(users.id, userId));
  return u?.name ?? u?.email ?? "Someone";
}

/**
 * Writes an invite and its email in one transaction. The token is in the email alone; the row keeps its sha256.
 * Earlier pending invites of the same address to the same place are revoked, so one link works at a time.
 */
async function issueInvite(
  tx: DbOrTx,
  ctx: CoreContext,
  actor: Actor,
  invite: {
    kind: "evaluation" | "team";
    teamId: string;
    evaluationId: string | null;
    email: string;
    permission: "VIEWER" | "EDITOR" | null;
    role: TeamRole | null;
    what: string;
  },
): Promise<InviteRow> {
  const now = ctx.clock.now();
  const email = normaliseEmail(invite.email);
  await tx
    .update(invites)
    .set({ status: "revoked", updatedAt: now })
    .where(
      and(
        eq(invites.email, email),
        eq(invites.status, "pending"),
        invite.evaluationId
          ? eq(invites.evaluationId, invite.evaluationId)
          : eq(invites.teamId, invite.teamId),
        eq(invites.kind, invite.kind),
      ),
    );
  const token = randomToken(32);
  const [row] = await tx
    .insert(invites)
    .values({
      id: newId("invite"),
      kind: invite.kind,
      teamId: invite.teamId,
      evaluationId: invite.evaluationId,
      email,
      permission: invite.permission,
      role: invite.role,
      tokenHash: sha256Hex(token),
      status: "pending",
      invitedBy: actor.userId,
      expiresAt: new Date(now.getTime() + INVITE_TTL_MS),
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  const link = `${ctx.baseUrl}/invites/${token}`;
  const by = await inviterName(tx, actor.userId);
  await enqueueEmail(
    tx,
    {
      to: email,
      subject: `${by} invited you to ${invite.what}`,
      text: `${by} invited you to ${invite.what} on Rubricon.\n\nAccept the invitation (sign in or sign up with ${email}):\n${link}\n\nThe link works once and expires in 14 days.`,
    },
    now,
  );
  const existing = await findPersonByEmail(tx, email);
  if (existing) {
    await notify(
      tx,
      {
        userId: existing.id,
        kind: "evaluation.invited",
        title: `${by} invited you to ${invite.what}`,
        data: {
          inviteId: row!.id,
          ...(invite.evaluationId ? { evaluationId: invite.evaluationId } : { teamId: invite.teamId }),
        },
        link,
      },
      now,
    );
  }
  return row!;
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

/** An invite to join a team, for someone who has no account yet (`POST /teams/{id}/members`). */
export async function createTeamInvite(
  tx: DbOrTx,
  ctx: CoreContext,
  actor: Actor,
  team: { id: string; name: string },
  input: { email: string; role: TeamRole },
) {
  const invite = await issueInvite(tx, ctx, actor, {
    kind: "team",
    teamId: team.id,
    evaluationId: null,
    email: input.email,
    permission: null,
    role: input.role,
    what: `join the team "${team.name}"`,
  });
  return toTeamInvite(invite, ctx.clock.now());
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

/** The invite a token names, or null; the hash is looked up and then compared in constant time. */
async function inviteByToken(tx: DbOrTx, token: string): Promise<InviteRow | null> {
  const hash = sha256Hex(token);
  const [row] = await tx.select().from(invites).where(eq(invites.tokenHash, hash)).for("update").limit(1);
  if (!row) return null;
  const a = Buffer.from(row.tokenHash, "hex");
  const b = Buffer.from(hash, "hex");
  return a.length === b.length && timingSafeEqual(a, b) ? row : null;
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
      if (!(await isTeamMember(tx, invite.teamId, me.id))) {
        await tx
          .insert(teamMembers)
          .values({ teamId: invite.teamId, userId: me.id, role: invite.role!, createdAt: now });
      }
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
