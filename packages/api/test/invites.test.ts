import { createHash } from "node:crypto";
import {
  AccessRequest,
  DeletedObject,
  Evaluation,
  EvaluationInvite,
  EvaluationInviteList,
  InviteAccepted,
  TeamInvite,
  TeamMemberList,
} from "@rubricon/contracts";
import { EmailSender, systemClock } from "@rubricon/core";
import { emailOutbox, invites } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emailLoop } from "../src/background/email";
import { createEvaluation, expectError, expectStatus, SSE_BODY } from "./helpers/assertions";
import {
  bodyOf,
  call,
  SignedUp,
  sessionHeaders,
  signUp,
  type TestUser,
  uniqueEmail,
} from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";
import { notificationsOf } from "./helpers/sharing";
import { bodyText, type MailServer, startMailServer } from "./helpers/smtp";

let mail: MailServer;
let server: TestServer;
let owner: TestUser;
let evaluation: Evaluation;

beforeAll(async () => {
  mail = await startMailServer();
  server = await startTestServer({
    env: { SMTP_URL: mail.url, EMAIL_FROM: "Rubricon <mail@rubricon.test>" },
  });
  owner = await signUp(server, "inviter");
  evaluation = await createEvaluation(server.api, as(owner), { ...SSE_BODY, name: "Invite study" });
});
afterAll(async () => {
  await server?.close();
  await mail?.close();
});

const as = (who: TestUser) => sessionHeaders(server, who);
const invitesUrl = (rest = "") => `${server.api}/evaluations/${evaluation.id}/invites${rest}`;
const accept = (who: TestUser, token: string) =>
  call(InviteAccepted, `${server.api}/invites/${token}/accept`, { method: "POST", headers: as(who) });

async function sendMail(): Promise<void> {
  const lines: string[] = [];
  await emailLoop(server.app.services, (l) => lines.push(l)).run();
}

/** The token of the last invite mailed to `email`, read from the message the SMTP server received. */
function tokenMailedTo(email: string): string {
  const message = mail.received.filter((m) => m.to.includes(email)).at(-1);
  if (!message) throw new Error(`no mail to ${email}`);
  const match = bodyText(message).match(/\/invites\/([A-Za-z0-9_-]{43})/);
  if (!match) throw new Error("no invite link in the mail");
  return match[1]!;
}

async function signUpAs(email: string): Promise<TestUser> {
  const password = "correct horse battery";
  const res = await call(SignedUp, `${server.url}/api/auth/sign-up`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: server.url },
    body: { email, password, name: "Invitee" },
  });
  const body = bodyOf(res);
  return {
    email,
    password,
    userId: body.user.id,
    teamId: body.teamId,
    cookie: res.headers.getSetCookie()[0]!.split(";")[0]!,
  };
}

describe("evaluation invites", () => {
  it("emails a single-use link over SMTP that makes the invited person a share holder", async () => {
    const email = uniqueEmail("invitee");
    const res = await call(EvaluationInvite, invitesUrl(), {
      method: "POST",
      headers: as(owner),
      body: { email, permission: "EDITOR" },
    });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({
      object: "evaluation_invite",
      email,
      permission: "EDITOR",
      status: "pending",
    });
    const days = (Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)) / 86_400_000;
    expect(days).toBe(14);
    await sendMail();
    const message = mail.received.find((m) => m.to.includes(email));
    expect(message?.from).toBe("mail@rubricon.test");
    expect(bodyText(message!)).toContain("Invite study");
    const token = tokenMailedTo(email);
    const [stored] = await server.database.db.select().from(invites).where(eq(invites.id, res.body.id));
    expect(stored!.tokenHash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(stored)).not.toContain(token);
    const [sent] = await server.database.db.select().from(emailOutbox).where(eq(emailOutbox.to, email));
    expect(sent).toMatchObject({ status: "sent", attempts: 1 });

    const wrongUser = await signUp(server, "wrong-user");
    expectError(await accept(wrongUser, token), 403, {
      type: "authorization_error",
      code: "invite_email_mismatch",
    });

    const invitee = await signUpAs(email);
    const accepted = await accept(invitee, token);
    expectStatus(accepted, 200);
    expect(accepted.body).toMatchObject({
      kind: "evaluation",
      evaluationId: evaluation.id,
      teamId: owner.teamId,
    });
    const seen = bodyOf(
      await call(Evaluation, `${server.api}/evaluations/${evaluation.id}`, { headers: as(invitee) }),
    );
    expect(seen.sharedWithYou).toEqual({ permission: "EDITOR" });
    expectError(await accept(invitee, token), 400, {
      type: "invalid_request_error",
      code: "invite_already_used",
    });
    const listed = bodyOf(await call(EvaluationInviteList, invitesUrl(), { headers: as(owner) }));
    expect(listed.data.find((i) => i.id === res.body.id)?.status).toBe("accepted");
    expect((await notificationsOf(server, invitee)).data.map((n) => n.kind)).toContain("evaluation.shared");
    expect((await notificationsOf(server, owner)).data.map((n) => n.kind)).toContain("invite.accepted");
  });

  it("refuses expired and withdrawn invites", async () => {
    const email = uniqueEmail("late");
    const expiring = bodyOf(
      await call(EvaluationInvite, invitesUrl(), { method: "POST", headers: as(owner), body: { email } }),
    );
    await sendMail();
    const token = tokenMailedTo(email);
    await server.database.db
      .update(invites)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(invites.id, expiring.id));
    const late = await signUpAs(email);
    expectError(await accept(late, token), 400, { type: "invalid_request_error", code: "invite_expired" });
    const listed = bodyOf(await call(EvaluationInviteList, invitesUrl(), { headers: as(owner) }));
    expect(listed.data.find((i) => i.id === expiring.id)?.status).toBe("expired");

    const fresh = bodyOf(
      await call(EvaluationInvite, invitesUrl(), { method: "POST", headers: as(owner), body: { email } }),
    );
    await sendMail();
    const second = tokenMailedTo(email);
    expectStatus(
      await call(DeletedObject, invitesUrl(`/${fresh.id}`), { method: "DELETE", headers: as(owner) }),
      200,
    );
    expectError(await accept(late, second), 400, { type: "invalid_request_error", code: "invite_revoked" });
    expectError(
      await call(DeletedObject, invitesUrl("/inv_nothere"), { method: "DELETE", headers: as(owner) }),
      404,
      {
        type: "not_found_error",
        code: "invite_not_found",
      },
    );
  });

  it("throttles guessed tokens", async () => {
    const guesser = await signUp(server, "guesser");
    let status = 0;
    for (let i = 0; i < 11; i++) {
      const res = await accept(guesser, `guess${i}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`);
      status = res.status;
      if (i < 10) expectError(res, 404, { type: "not_found_error", code: "invite_not_found" });
    }
    expect(status).toBe(429);
  });

  it("refuses members of the owning team and strangers", async () => {
    const stranger = await signUp(server, "stranger");
    expectError(
      await call(EvaluationInvite, invitesUrl(), {
        method: "POST",
        headers: as(stranger),
        body: { email: uniqueEmail("x") },
      }),
      404,
      { type: "not_found_error", code: "evaluation_not_found" },
    );
    expectError(
      await call(EvaluationInvite, invitesUrl(), {
        method: "POST",
        headers: as(owner),
        body: { email: owner.email },
      }),
      400,
      { type: "invalid_request_error", code: "already_has_access", param: "email" },
    );
    expectError(
      await call(EvaluationInvite, invitesUrl(), {
        method: "POST",
        headers: as(owner),
        body: { email: uniqueEmail("o"), permission: "OWNER" },
      }),
      400,
      { type: "invalid_request_error", param: "permission" },
    );
  });
});

describe("team invites", () => {
  it("invites someone without an account into the team", async () => {
    const email = uniqueEmail("joiner");
    const res = await call(TeamInvite, `${server.api}/teams/${owner.teamId}/members`, {
      method: "POST",
      headers: as(owner),
      body: { email, role: "member" },
    });
    expectStatus(res, 201);
    await sendMail();
    const joiner = await signUpAs(email);
    const accepted = await accept(joiner, tokenMailedTo(email));
    expectStatus(accepted, 200);
    expect(accepted.body).toMatchObject({ kind: "team", teamId: owner.teamId, evaluationId: null });
    const members = bodyOf(
      await call(TeamMemberList, `${server.api}/teams/${owner.teamId}/members`, { headers: as(joiner) }),
    );
    expect(members.data.map((m) => m.userId)).toContain(joiner.userId);
  });
});

describe("two people in different teams", () => {
  it("share by request and approval, with each step in their notifications and mailboxes", async () => {
    const linked = await createEvaluation(server.api, as(owner), {
      ...SSE_BODY,
      name: "Requested study",
      status: "Running",
      shareAccess: "ANYONE_WITH_LINK",
    });
    const asker = await signUp(server, "asker");
    const req = bodyOf(
      await call(AccessRequest, `${server.api}/evaluations/${linked.id}/access-requests`, {
        method: "POST",
        headers: as(asker),
        body: { message: "May I see the results?" },
      }),
    );
    await sendMail();
    expect(
      mail.received.some((m) => m.to.includes(owner.email) && bodyText(m).includes("May I see the results?")),
    ).toBe(true);
    expectStatus(
      await call(AccessRequest, `${server.api}/evaluations/${linked.id}/access-requests/${req.id}/approve`, {
        method: "POST",
        headers: as(owner),
        body: {},
      }),
      200,
    );
    await sendMail();
    expect(mail.received.some((m) => m.to.includes(asker.email) && bodyText(m).includes("approved"))).toBe(
      true,
    );
    expect((await notificationsOf(server, asker)).data[0]!.kind).toBe("access_request.approved");
  });
});

describe("the outbox", () => {
  it("keeps a message whose send failed and sends it on a later pass", async () => {
    const down = await startMailServer();
    const url = down.url;
    await down.close();
    const email = uniqueEmail("retry");
    await call(EvaluationInvite, invitesUrl(), { method: "POST", headers: as(owner), body: { email } });
    const failing = new EmailSender({
      db: server.database.db,
      clock: systemClock,
      smtpUrl: url,
      from: "mail@rubricon.test",
      log: () => {},
    });
    const pass = await failing.runPass();
    failing.close();
    expect(pass.failed.length).toBeGreaterThanOrEqual(1);
    const [queued] = await server.database.db.select().from(emailOutbox).where(eq(emailOutbox.to, email));
    expect(queued).toMatchObject({ status: "pending", attempts: 1 });
    expect(queued!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
    const later = new EmailSender({
      db: server.database.db,
      clock: { now: () => new Date(Date.now() + 2 * 60_000) },
      smtpUrl: mail.url,
      from: "mail@rubricon.test",
      log: () => {},
    });
    await later.runPass();
    later.close();
    expect(mail.received.some((m) => m.to.includes(email))).toBe(true);
    const [sent] = await server.database.db.select().from(emailOutbox).where(eq(emailOutbox.to, email));
    expect(sent).toMatchObject({ status: "sent", attempts: 2 });
  });

  it("writes mail to the log when no SMTP server is configured", async () => {
    const email = uniqueEmail("logged");
    await call(EvaluationInvite, invitesUrl(), { method: "POST", headers: as(owner), body: { email } });
    const lines: string[] = [];
    const sender = new EmailSender({
      db: server.database.db,
      clock: systemClock,
      smtpUrl: undefined,
      from: "x@y.z",
      log: (l) => lines.push(l),
    });
    await sender.runPass();
    expect(lines.some((l) => l.includes(email) && l.includes("/invites/"))).toBe(true);
    const [logged] = await server.database.db.select().from(emailOutbox).where(eq(emailOutbox.to, email));
    expect(logged!.status).toBe("logged");
  });
});
