import { ApiKeyList, DeletedObject, Team, TeamLeaveResult, WhoAmI } from "@rubricon/contracts";
import { teamMembers } from "@rubricon/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

/** A team's keys answer to the team: its owners and admins see and revoke them all, and leaving revokes yours. */
let server: TestServer;
let owner: TestUser;
let member: TestUser;
let teamId: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, "key-owner");
  member = await signUp(server, "key-member");
  const team = await call(Team, `${server.api}/teams`, {
    method: "POST",
    headers: sessionHeaders(server, owner),
    body: { name: "Shared" },
  });
  teamId = bodyOf(team).id;
  await server.setPlan(teamId, "pro");
  await server.database.db.insert(teamMembers).values({ teamId, userId: member.userId, role: "member" });
});
afterAll(() => server?.close());

const teamKeys = (user: TestUser) =>
  call(ApiKeyList, `${server.api}/teams/${teamId}/api-keys`, { headers: sessionHeaders(server, user) });

describe("a team's API keys", () => {
  it("are listed in full to owners, with who minted each, and to nobody else", async () => {
    const memberKey = await mintApiKey(server, member, ["*"], teamId);
    await mintApiKey(server, owner, ["evaluations:read"], teamId);
    const listed = await teamKeys(owner);
    const keys = bodyOf(listed).data;
    expect(keys.map((k) => k.userId).sort()).toEqual([member.userId, owner.userId].sort());
    expect(JSON.stringify(listed.body)).not.toContain(memberKey);
    expectError(await teamKeys(member), 403, { type: "authorization_error", code: "insufficient_role" });
    const outsider = await signUp(server, "outsider");
    expectError(await teamKeys(outsider), 404, { type: "not_found_error", code: "team_not_found" });
    const ownersKey = await mintApiKey(server, owner, ["*"], teamId);
    expectError(
      await call(ApiKeyList, `${server.api}/teams/${teamId}/api-keys`, { headers: bearer(ownersKey) }),
      403,
      {
        type: "authorization_error",
        code: "session_required",
      },
    );
  });

  it("can be revoked by an owner, whoever minted them", async () => {
    const memberKey = await mintApiKey(server, member, ["*"], teamId);
    expect((await call(WhoAmI, `${server.api}/auth/whoami`, { headers: bearer(memberKey) })).status).toBe(
      200,
    );
    const id = bodyOf(await teamKeys(owner)).data.find(
      (k) => k.userId === member.userId && k.revokedAt === null,
    )!.id;
    const revoked = await call(DeletedObject, `${server.api}/teams/${teamId}/api-keys/${id}`, {
      method: "DELETE",
      headers: sessionHeaders(server, owner),
    });
    expect(revoked.body).toEqual({ id, deleted: true });
    expectError(await call(WhoAmI, `${server.api}/auth/whoami`, { headers: bearer(memberKey) }), 401, {
      type: "authentication_error",
      code: "api_key_revoked",
    });
    expectError(
      await call(DeletedObject, `${server.api}/teams/${teamId}/api-keys/key_of_nobody`, {
        method: "DELETE",
        headers: sessionHeaders(server, owner),
      }),
      404,
      { type: "not_found_error", code: "api_key_not_found" },
    );
  });

  it("of a member who leaves stop working at once", async () => {
    const kept = await mintApiKey(server, member, ["*"], teamId);
    const personal = await mintApiKey(server, member, ["*"]);
    const left = await call(TeamLeaveResult, `${server.api}/teams/${teamId}/leave`, {
      method: "POST",
      headers: sessionHeaders(server, member),
      body: {},
    });
    expect(bodyOf(left).revokedApiKeys).toBeGreaterThanOrEqual(1);
    expectError(await call(WhoAmI, `${server.api}/auth/whoami`, { headers: bearer(kept) }), 401, {
      type: "authentication_error",
      code: "api_key_revoked",
    });
    // Keys on the member's other teams are theirs to keep.
    expect((await call(WhoAmI, `${server.api}/auth/whoami`, { headers: bearer(personal) })).status).toBe(200);
  });
});
