import { TeamAdminTransfer, TeamMemberList } from "@rubricon/contracts";
import { teamMembers } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError, expectStatus } from "./helpers/assertions";
import { bearer, call, mintApiKey, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";
import { joinTeam, notificationsOf } from "./helpers/sharing";

let server: TestServer;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let outsider: TestUser;

const as = (who: TestUser) => sessionHeaders(server, who);
const transfer = (by: Record<string, string>, teamId: string, userId: unknown) =>
  call(TeamAdminTransfer, `${server.api}/teams/${teamId}/transfer-admin`, {
    method: "POST",
    headers: by,
    body: { userId },
  });

beforeAll(async () => {
  server = await startTestServer();
  [owner, admin, member, outsider] = await Promise.all([
    signUp(server, "xfer-owner"),
    signUp(server, "xfer-admin"),
    signUp(server, "xfer-member"),
    signUp(server, "xfer-outsider"),
  ]);
  await joinTeam(server, owner, admin, "admin");
  await joinTeam(server, owner, member, "member");
}, 240_000);
afterAll(() => server?.close());

describe("POST /teams/{id}/transfer-admin", () => {
  it("refuses non-owners, strangers, yourself, keys and bad input with their codes", async () => {
    expectError(await transfer(as(admin), owner.teamId, member.userId), 403, {
      type: "authorization_error",
      code: "insufficient_role",
    });
    expectError(await transfer(as(member), owner.teamId, member.userId), 403, {
      type: "authorization_error",
      code: "insufficient_role",
    });
    expectError(await transfer(as(outsider), owner.teamId, outsider.userId), 404, {
      type: "not_found_error",
      code: "team_not_found",
    });
    expectError(await transfer(as(owner), owner.teamId, outsider.userId), 404, {
      type: "not_found_error",
      code: "member_not_found",
    });
    expectError(await transfer(as(owner), owner.teamId, owner.userId), 400, {
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "userId",
    });
    expectError(await transfer(as(owner), owner.teamId, 42), 400, {
      type: "invalid_request_error",
      param: "userId",
    });
    expectError(
      await call(z.never(), `${server.api}/teams/${owner.teamId}/transfer-admin`, {
        method: "POST",
        headers: as(owner),
        body: {},
      }),
      400,
      { type: "invalid_request_error", code: "parameter_missing", param: "userId" },
    );
    const key = await mintApiKey(server, owner, ["*"]);
    expectError(await transfer(bearer(key), owner.teamId, member.userId), 403, {
      type: "authorization_error",
      code: "session_required",
    });
  });

  it("makes the member the owner and the caller an admin in one step, and tells the new owner", async () => {
    const res = await transfer(as(owner), owner.teamId, member.userId);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      object: "team_admin_transfer",
      teamId: owner.teamId,
      previousOwner: { userId: owner.userId, role: "admin" },
      newOwner: { userId: member.userId, role: "owner" },
    });
    const members = await call(TeamMemberList, `${server.api}/teams/${owner.teamId}/members`, {
      headers: as(member),
    });
    expectStatus(members, 200);
    const roles = Object.fromEntries(members.body.data.map((m) => [m.userId, m.role]));
    expect(roles).toEqual({ [owner.userId]: "admin", [admin.userId]: "admin", [member.userId]: "owner" });
    const told = await notificationsOf(server, member);
    expect(told.data.map((n) => n.kind)).toContain("team.ownership_transferred");
    // The former owner is an admin now: handing the team on again is the new owner's call.
    expectError(await transfer(as(owner), owner.teamId, admin.userId), 403, {
      type: "authorization_error",
      code: "insufficient_role",
    });
    expectStatus(await transfer(as(member), owner.teamId, owner.userId), 200);
  });
});

describe("concurrent transfers", () => {
  it("four at once by the same owner leave exactly one new owner; the others are refused", async () => {
    const boss = await signUp(server, "race-owner");
    const heirs = await Promise.all([1, 2, 3, 4].map((i) => signUp(server, `race-heir-${i}`)));
    // Members joined directly: what is tested is the handover, not how they joined.
    await server.database.db.insert(teamMembers).values(
      heirs.map((h) => ({
        teamId: boss.teamId,
        userId: h.userId,
        role: "member" as const,
        createdAt: new Date(),
      })),
    );
    const answers = await Promise.all(heirs.map((h) => transfer(as(boss), boss.teamId, h.userId)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 403, 403, 403]);
    for (const refused of answers.filter((a) => a.status === 403))
      expect(refused.body).toMatchObject({ error: { code: "insufficient_role" } });
    const roles = await server.database.db
      .select({ userId: teamMembers.userId, role: teamMembers.role })
      .from(teamMembers)
      .where(eq(teamMembers.teamId, boss.teamId));
    const owners = roles.filter((r) => r.role === "owner").map((r) => r.userId);
    expect(owners).toHaveLength(1);
    const winner = answers.findIndex((a) => a.status === 200);
    expect(owners).toEqual([heirs[winner]!.userId]);
    expect(roles.find((r) => r.userId === boss.userId)?.role).toBe("admin");
  });
});
