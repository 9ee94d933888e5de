import {
  ApiKeyWithSecret,
  Evaluation,
  InviteAccepted,
  TeamInvite,
  TeamMember,
  TeamMemberList,
  TeamMemberRemoval,
  UserLookup,
} from "@rubricon/contracts";
import { emailOutbox } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation, expectError, expectStatus, SSE_BODY } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";
import { invitationTokenFor, joinTeam, notificationsOf, shareWith } from "./helpers/sharing";

let server: TestServer;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  [owner, admin, member, outsider] = await Promise.all([
    signUp(server, "owner"),
    signUp(server, "admin"),
    signUp(server, "member"),
    signUp(server, "outsider"),
  ]);
  await joinTeam(server, owner, admin, "admin");
  await joinTeam(server, owner, member, "member");
});
afterAll(() => server?.close());

const as = (who: TestUser) => sessionHeaders(server, who);
const membersUrl = (rest = "", teamId = owner.teamId) => `${server.api}/teams/${teamId}/members${rest}`;
function add(by: TestUser, email: string, role: string) {
  return call(TeamMember.or(TeamInvite), membersUrl(), {
    method: "POST",
    headers: as(by),
    body: { email, role },
  });
}

describe("adding members", () => {
  it("invites an existing user, who joins only by accepting, then sees the team's evaluations", async () => {
    const newcomer = await signUp(server, "newcomer");
    const e = await createEvaluation(server.api, as(owner), SSE_BODY);
    const canRead = async () =>
      (await call(Evaluation, `${server.api}/evaluations/${e.id}`, { headers: as(newcomer) })).status;
    expect(await canRead()).toBe(404);
    const res = await add(admin, newcomer.email, "member");
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ object: "team_invite", email: newcomer.email, role: "member" });
    expect(res.body).not.toHaveProperty("userId");
    // Not a member until they say yes.
    expect(await canRead()).toBe(404);
    const token = await invitationTokenFor(server, newcomer.email);
    expectStatus(
      await call(InviteAccepted, `${server.api}/invites/${token}/accept`, {
        method: "POST",
        headers: as(newcomer),
      }),
      200,
    );
    expect(await canRead()).toBe(200);
    expectError(await add(owner, newcomer.email, "member"), 400, {
      type: "invalid_request_error",
      code: "already_member",
      param: "email",
    });
  });

  it("answers alike whether or not the address has an account", async () => {
    const registered = await signUp(server, "alike");
    const unknown = `nobody-${Date.now()}@example.com`;
    const a = await add(owner, registered.email, "member");
    const b = await add(owner, unknown, "member");
    expectStatus(a, 201);
    expectStatus(b, 201);
    const shape = (body: Record<string, unknown>) => Object.keys(body).sort();
    expect(shape(a.body as Record<string, unknown>)).toEqual(shape(b.body as Record<string, unknown>));
    expect(a.body).toMatchObject({ object: "team_invite", status: "pending" });
    expect(b.body).toMatchObject({ object: "team_invite", status: "pending" });
    expect(JSON.stringify(a.body)).not.toContain(registered.userId);
  });

  it("mails one invitation per person and team a day, however often they are removed and invited again", async () => {
    const target = await signUp(server, "bombed");
    const mailsTo = async () =>
      (await server.database.db.select().from(emailOutbox).where(eq(emailOutbox.to, target.email))).length;
    for (let i = 0; i < 6; i++) {
      expectStatus(await add(owner, target.email, "member"), 201);
      const pending = bodyOf(await call(TeamMemberList, membersUrl(), { headers: as(owner) }));
      expect(pending.data.map((m) => m.userId)).not.toContain(target.userId);
    }
    expect(await mailsTo()).toBe(1);
    // The one link mailed still works, and after joining, leaving and being invited again nothing more is mailed.
    const token = await invitationTokenFor(server, target.email);
    expectStatus(
      await call(InviteAccepted, `${server.api}/invites/${token}/accept`, {
        method: "POST",
        headers: as(target),
      }),
      200,
    );
    expectStatus(
      await call(TeamMemberRemoval, membersUrl(`/${target.userId}`), {
        method: "DELETE",
        headers: as(owner),
      }),
      200,
    );
    expectStatus(await add(owner, target.email, "member"), 201);
    expect(await mailsTo()).toBe(1);
    const inbox = await notificationsOf(server, target);
    expect(inbox.data.filter((n) => n.kind === "evaluation.invited")).toHaveLength(1);
  });

  it("invites an address without an account by email", async () => {
    const email = `future-${Date.now()}@example.com`;
    const res = await add(owner, email, "admin");
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ object: "team_invite", email, role: "admin", status: "pending" });
    const mail = await server.database.db.select().from(emailOutbox).where(eq(emailOutbox.to, email));
    expect(mail).toHaveLength(1);
    expect(mail[0]!.text).toMatch(/\/invites\/[A-Za-z0-9_-]{43}/);
  });

  it("keeps adding to owners and admins, and making owners to owners", async () => {
    expectError(await add(member, outsider.email, "member"), 403, {
      type: "authorization_error",
      code: "insufficient_role",
    });
    expectError(await add(admin, outsider.email, "owner"), 403, {
      type: "authorization_error",
      code: "insufficient_role",
    });
    expectError(await add(outsider, outsider.email, "member"), 404, {
      type: "not_found_error",
      code: "team_not_found",
    });
    const key = await mintApiKey(server, owner, ["*"]);
    expectError(
      await call(TeamMember, membersUrl(), {
        method: "POST",
        headers: bearer(key),
        body: { email: outsider.email, role: "member" },
      }),
      403,
      { type: "authorization_error" },
    );
  });
});

describe("listing members", () => {
  it("pages newest first by user id cursors", async () => {
    const all = await call(TeamMemberList, membersUrl("?limit=100"), { headers: as(member) });
    expectStatus(all, 200);
    expect(all.body.total_count).toBe(all.body.data.length);
    const walked: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = bodyOf(
        await call(TeamMemberList, membersUrl(`?limit=1${after ? `&starting_after=${after}` : ""}`), {
          headers: as(member),
        }),
      );
      walked.push(...page.data.map((m) => m.userId));
      if (!page.has_more) break;
      after = page.next_cursor;
    }
    expect(walked).toEqual(all.body.data.map((m) => m.userId));
    expect(walked.at(-1)).toBe(owner.userId);
    const before = bodyOf(
      await call(TeamMemberList, membersUrl(`?ending_before=${owner.userId}`), { headers: as(member) }),
    );
    expect(before.data.map((m) => m.userId)).toEqual(walked.slice(0, -1));
    expectError(
      await call(TeamMemberList, membersUrl("?starting_after=usr_nobody"), { headers: as(member) }),
      400,
      {
        type: "invalid_request_error",
        code: "invalid_cursor",
        param: "starting_after",
      },
    );
  });
});

describe("roles", () => {
  it("never demotes or removes the last owner", async () => {
    expectError(
      await call(TeamMember, membersUrl(`/${owner.userId}`), {
        method: "PATCH",
        headers: as(owner),
        body: { role: "admin" },
      }),
      400,
      { type: "invalid_request_error", code: "last_owner_required" },
    );
    expectError(
      await call(TeamMemberRemoval, membersUrl(`/${owner.userId}`), { method: "DELETE", headers: as(owner) }),
      400,
      {
        type: "invalid_request_error",
        code: "last_owner_required",
      },
    );
  });

  it("lets owners promote, and only owners touch owners", async () => {
    const second = await signUp(server, "second-owner");
    await joinTeam(server, owner, second, "member");
    expectError(
      await call(TeamMember, membersUrl(`/${second.userId}`), {
        method: "PATCH",
        headers: as(admin),
        body: { role: "owner" },
      }),
      403,
      { type: "authorization_error", code: "insufficient_role" },
    );
    const promoted = await call(TeamMember, membersUrl(`/${second.userId}`), {
      method: "PATCH",
      headers: as(owner),
      body: { role: "owner" },
    });
    expectStatus(promoted, 200);
    expect(promoted.body.role).toBe("owner");
    expectError(
      await call(TeamMemberRemoval, membersUrl(`/${second.userId}`), {
        method: "DELETE",
        headers: as(admin),
      }),
      403,
      {
        type: "authorization_error",
        code: "insufficient_role",
      },
    );
    // With two owners, one may step down.
    expectStatus(
      await call(TeamMember, membersUrl(`/${second.userId}`), {
        method: "PATCH",
        headers: as(second),
        body: { role: "member" },
      }),
      200,
    );
    expectError(
      await call(TeamMember, membersUrl(`/usr_nobody`), {
        method: "PATCH",
        headers: as(owner),
        body: { role: "member" },
      }),
      404,
      { type: "not_found_error", code: "member_not_found" },
    );
  });
});

describe("removing members", () => {
  it("revokes the removed member's API keys on the team and ends their access", async () => {
    const leaver = await signUp(server, "leaver");
    await joinTeam(server, owner, leaver, "member");
    const minted = await call(ApiKeyWithSecret, `${server.api}/api-keys`, {
      method: "POST",
      headers: as(leaver),
      body: { name: "team key", scopes: ["evaluations:read"], teamId: owner.teamId },
    });
    expectStatus(minted, 201);
    const key = minted.body.key;
    const e = await createEvaluation(server.api, as(owner), SSE_BODY);
    expectStatus(await call(Evaluation, `${server.api}/evaluations/${e.id}`, { headers: bearer(key) }), 200);
    const removed = await call(TeamMemberRemoval, membersUrl(`/${leaver.userId}`), {
      method: "DELETE",
      headers: as(admin),
    });
    expectStatus(removed, 200);
    expect(removed.body).toEqual({
      object: "team_member_removal",
      teamId: owner.teamId,
      userId: leaver.userId,
      removed: true,
      revokedApiKeys: 1,
    });
    expectError(await call(Evaluation, `${server.api}/evaluations/${e.id}`, { headers: bearer(key) }), 401, {
      type: "authentication_error",
      code: "api_key_revoked",
    });
    expectError(await call(Evaluation, `${server.api}/evaluations/${e.id}`, { headers: as(leaver) }), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
  });

  it("lets a member remove themselves, but not others", async () => {
    const quitter = await signUp(server, "quitter");
    await joinTeam(server, owner, quitter, "member");
    expectError(
      await call(TeamMemberRemoval, membersUrl(`/${admin.userId}`), {
        method: "DELETE",
        headers: as(quitter),
      }),
      403,
      {
        type: "authorization_error",
        code: "insufficient_role",
      },
    );
    expectStatus(
      await call(TeamMemberRemoval, membersUrl(`/${quitter.userId}`), {
        method: "DELETE",
        headers: as(quitter),
      }),
      200,
    );
  });
});

describe("identity lookup", () => {
  it("finds people the caller works with by exact email, and tells a stranger nothing", async () => {
    const lookup = (who: TestUser, email: string) =>
      call(UserLookup.strict(), `${server.api}/users/lookup?email=${encodeURIComponent(email)}`, {
        headers: as(who),
      });
    const res = await lookup(owner, admin.email);
    expectStatus(res, 200);
    expect(res.body).toEqual({ object: "user", id: admin.userId, name: "admin", email: admin.email });
    const partial = outsider.email.slice(0, 8);
    expectError(await lookup(owner, partial), 400, { type: "invalid_request_error", param: "email" });

    // As in the attack: a self-registered stranger asks about an account that exists and one that does not.
    const stranger = await signUp(server, "stranger");
    const missing = `nobody-${Date.now()}@example.com`;
    const existing = await lookup(stranger, owner.email);
    const absent = await lookup(stranger, missing);
    for (const answer of [existing, absent]) {
      expectError(answer, 404, { type: "not_found_error", code: "user_not_found", param: "email" });
    }
    const shape = (a: typeof existing, email: string) => ({
      status: a.status,
      headers: [...a.headers.keys()].filter((h) => !h.startsWith("x-ratelimit")).sort(),
      error: { ...(a.body as { error: Record<string, unknown> }).error, request_id: "", message: "" },
      message: (a.body as { error: { message: string } }).error.message.replace(email, "EMAIL"),
    });
    expect(shape(existing, owner.email)).toEqual(shape(absent, missing));
    // Same timing class: one query either way (medians of a few lookups, with room for a busy machine). The two
    // are timed in turn, so a machine that gets busier or quieter meanwhile weighs on both alike.
    const timesOf: Record<string, number[]> = { [owner.email]: [], [missing]: [] };
    for (let i = 0; i < 7; i++) {
      for (const email of i % 2 === 0 ? [owner.email, missing] : [missing, owner.email]) {
        const started = performance.now();
        await lookup(stranger, email);
        timesOf[email]!.push(performance.now() - started);
      }
    }
    const median = (email: string) => timesOf[email]!.sort((a, b) => a - b)[3]!;
    expect(Math.abs(median(owner.email) - median(missing))).toBeLessThan(25);

    // Once they share an evaluation, each finds the other.
    const evaluation = await createEvaluation(server.api, as(owner), { ...SSE_BODY, name: "Shared" });
    await shareWith(server, owner, evaluation.id, outsider, "VIEWER");
    expect(bodyOf(await lookup(outsider, owner.email)).id).toBe(owner.userId);
    expect(bodyOf(await lookup(owner, outsider.email)).id).toBe(outsider.userId);
    expect(bodyOf(await lookup(member, outsider.email)).id).toBe(outsider.userId);
    // Two people shared on the same evaluation, neither in its team.
    await shareWith(server, owner, evaluation.id, stranger, "VIEWER");
    expect(bodyOf(await lookup(stranger, outsider.email)).id).toBe(outsider.userId);
  });

  it("is for signed-in users only, and limited per user", async () => {
    const key = await mintApiKey(server, owner, ["*"]);
    expectError(
      await call(UserLookup, `${server.api}/users/lookup?email=${encodeURIComponent(admin.email)}`, {
        headers: bearer(key),
      }),
      403,
      {
        type: "authorization_error",
      },
    );
    const prober = await signUp(server, "prober");
    let limited = false;
    for (let i = 0; i < 31 && !limited; i++) {
      const res = await call(UserLookup, `${server.api}/users/lookup?email=probe${i}@example.com`, {
        headers: as(prober),
      });
      if (res.status === 429) {
        limited = true;
        expect(res.headers.get("Retry-After")).toMatch(/^\d+$/);
        expectError(res, 429, { type: "rate_limit_error", code: "rate_limit_exceeded" });
        expect(i).toBe(30);
      }
    }
    expect(limited).toBe(true);
  });
});
