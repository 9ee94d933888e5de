import { timingSafeEqual } from "node:crypto";
import type { TeamRole } from "@rubricon/contracts";
import { type DbOrTx, invites, newId, teamMembers, users } from "@rubricon/db";
import { and, desc, eq, gt } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { randomToken, sha256Hex } from "../../kernel";
import { enqueueEmail } from "../email/outbox";
import { notify } from "../notifications/notify";
import { normaliseEmail } from "../users/accounts";
import { findPersonByEmail, isTeamMember } from "../users/people";

export const INVITE_TTL_MS = 14 * 24 * 60 * 60 * 1000;
/** One invitation e-mail per address and place (team or evaluation) in this period, as for access requests. */
export const INVITE_MAIL_PERIOD_MS = 24 * 60 * 60 * 1000;

export type InviteRow = typeof invites.$inferSelect;

export function inviteStatus(row: InviteRow, now: Date) {
  return row.status === "pending" && row.expiresAt <= now ? ("expired" as const) : row.status;
}

export function toTeamInvite(row: InviteRow, now: Date) {
  return {
    id: row.id,
    object: "team_invite" as const,
    teamId: row.teamId,
    email: row.email,
    role: row.role!,
    status: inviteStatus(row, now),
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
export async function issueInvite(
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
  const place = invite.evaluationId
    ? eq(invites.evaluationId, invite.evaluationId)
    : eq(invites.teamId, invite.teamId);
  // Inviting the same address to the same place again within a day (remove and re-add, revoke and re-invite)
  // sends nothing: the invitation mailed then is made current again with the new role or permission, and its
  // link works. Without this, one caller could mail anyone as often as the request budget allows.
  const [recent] = await tx
    .select()
    .from(invites)
    .where(
      and(
        eq(invites.email, email),
        eq(invites.kind, invite.kind),
        place,
        gt(invites.createdAt, new Date(now.getTime() - INVITE_MAIL_PERIOD_MS)),
      ),
    )
    .orderBy(desc(invites.createdAt))
    .for("update")
    .limit(1);
  if (recent) {
    const [again] = await tx
      .update(invites)
      .set({
        status: "pending",
        permission: invite.permission,
        role: invite.role,
        acceptedBy: null,
        acceptedAt: null,
        expiresAt: new Date(recent.createdAt.getTime() + INVITE_TTL_MS),
        updatedAt: now,
      })
      .where(eq(invites.id, recent.id))
      .returning();
    return again!;
  }
  await tx
    .update(invites)
    .set({ status: "revoked", updatedAt: now })
    .where(
      and(eq(invites.email, email), eq(invites.status, "pending"), place, eq(invites.kind, invite.kind)),
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

/** An invite to join a team (`POST /teams/{id}/members`), whether or not the address has an account. */
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

/** The invite a token names, or null; the hash is looked up and then compared in constant time. */
export async function inviteByToken(tx: DbOrTx, token: string): Promise<InviteRow | null> {
  const hash = sha256Hex(token);
  const [row] = await tx.select().from(invites).where(eq(invites.tokenHash, hash)).for("update").limit(1);
  if (!row) return null;
  const a = Buffer.from(row.tokenHash, "hex");
  const b = Buffer.from(hash, "hex");
  return a.length === b.length && timingSafeEqual(a, b) ? row : null;
}

/** The team half of accepting an invite: the invited person joins with the invite's role, unless already in. */
export async function joinTeamByInvite(
  tx: DbOrTx,
  invite: InviteRow,
  userId: string,
  now: Date,
): Promise<void> {
  if (await isTeamMember(tx, invite.teamId, userId)) return;
  await tx.insert(teamMembers).values({ teamId: invite.teamId, userId, role: invite.role!, createdAt: now });
}
