import { EvaluationShare, InviteAccepted, NotificationList, TeamInvite } from "@rubricon/contracts";
import { emailOutbox } from "@rubricon/db";
import { desc, eq } from "drizzle-orm";
import { bodyOf, call, sessionHeaders, type TestUser } from "./clients";
import type { TestServer } from "./server";

/** Shares an evaluation with `who` (named by user id: a share at once) through the API, as `by`. */
export async function shareWith(
  server: TestServer,
  by: TestUser,
  evaluationId: string,
  who: TestUser,
  permission: "VIEWER" | "EDITOR" | "OWNER",
) {
  const res = await call(EvaluationShare, `${server.api}/evaluations/${evaluationId}/shares`, {
    method: "POST",
    headers: sessionHeaders(server, by),
    body: { userId: who.userId, permission },
  });
  if (res.status !== 201) throw new Error(`share failed: ${res.status} ${JSON.stringify(res.body)}`);
  return bodyOf(res);
}

/** The token of the last invitation mailed to `email`, read from the outbox the worker sends from. */
export async function invitationTokenFor(server: TestServer, email: string): Promise<string> {
  const [mail] = await server.database.db
    .select({ text: emailOutbox.text })
    .from(emailOutbox)
    .where(eq(emailOutbox.to, email.toLowerCase()))
    .orderBy(desc(emailOutbox.createdAt))
    .limit(1);
  const token = /\/invites\/([\w-]+)/.exec(mail?.text ?? "")?.[1];
  if (!token) throw new Error(`no invitation was mailed to ${email}`);
  return token;
}

/** Brings `who` into `by`'s team `teamId` as its members join: invited by e-mail, then accepting. */
export async function joinTeam(
  server: TestServer,
  by: TestUser,
  who: TestUser,
  role: "owner" | "admin" | "member",
  teamId = by.teamId,
) {
  const invited = await call(TeamInvite, `${server.api}/teams/${teamId}/members`, {
    method: "POST",
    headers: sessionHeaders(server, by),
    body: { email: who.email, role },
  });
  if (invited.status !== 201)
    throw new Error(`invite failed: ${invited.status} ${JSON.stringify(invited.body)}`);
  const token = await invitationTokenFor(server, who.email);
  const accepted = await call(InviteAccepted, `${server.api}/invites/${token}/accept`, {
    method: "POST",
    headers: sessionHeaders(server, who),
  });
  if (accepted.status !== 200)
    throw new Error(`accept failed: ${accepted.status} ${JSON.stringify(accepted.body)}`);
}

export async function notificationsOf(server: TestServer, who: TestUser) {
  return bodyOf(
    await call(NotificationList, `${server.api}/notifications?limit=100`, {
      headers: sessionHeaders(server, who),
    }),
  );
}
