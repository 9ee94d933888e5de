import { Team, TeamLeaveResult, TeamList, TeamMemberList } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, expectStatus } from "./helpers/assertions";
import {
  bearer,
  bodyOf,
  call,
  mintApiKey,
  mintPluginToken,
  sessionHeaders,
  signUp,
  type TestUser,
} from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let user: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server, "teams");
  outsider = await signUp(server, "outsider");
});
afterAll(() => server?.close());

const as = (who: TestUser) => sessionHeaders(server, who);
const createTeam = (body: Record<string, unknown>, headers: Record<string, string> = as(user)) =>
  call(Team, `${server.api}/teams`, { method: "POST", headers, body });

describe("teams", () => {
  it("creates a team owned by the caller on the free plan", async () => {
    const res = await createTeam({
      name: "  Research  ",
      description: "UX research",
    });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({
      object: "team",
      name: "Research",
      description: "UX research",
      plan: "free",
      role: "owner",
    });
    expect(res.body.id).toMatch(/^team_/);
    const members = await call(TeamMemberList, `${server.api}/teams/${res.body.id}/members`, {
      headers: as(user),
    });
    expectStatus(members, 200);
    expect(members.body).toMatchObject({
      object: "list",
      has_more: false,
      total_count: 1,
    });
    expect(members.body.data).toEqual([
      expect.objectContaining({
        object: "team_member",
        userId: user.userId,
        teamId: res.body.id,
        email: user.email,
        role: "owner",
      }),
    ]);
  });

  it("validates the body", async () => {
    expectError(await createTeam({}), 400, {
      type: "invalid_request_error",
      code: "parameter_missing",
      param: "name",
    });
    expectError(await createTeam({ name: "   " }), 400, {
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "name",
    });
    expectError(await createTeam({ name: "x", plan: "pro" }), 400, {
      type: "invalid_request_error",
      code: "parameter_unknown",
      param: "plan",
    });
  });

  it("lists the caller's teams with roles and a total count", async () => {
    const fresh = await signUp(server, "lister");
    const extra = await createTeam({ name: "Extra" }, as(fresh));
    const res = await call(TeamList, `${server.api}/teams`, { headers: as(fresh) });
    expectStatus(res, 200);
    expect(res.body.total_count).toBe(2);
    expect(res.body.data.map((t) => t.id).sort()).toEqual([fresh.teamId, bodyOf(extra).id].sort());
    for (const t of res.body.data) expect(t.role).toBe("owner");
  });

  it("gets a team the caller belongs to and hides others with 404", async () => {
    const mine = await call(Team, `${server.api}/teams/${user.teamId}`, {
      headers: as(user),
    });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ id: user.teamId, role: "owner" });
    const theirs = await call(Team, `${server.api}/teams/${outsider.teamId}`, {
      headers: as(user),
    });
    expectError(theirs, 404, {
      type: "not_found_error",
      code: "team_not_found",
    });
    const members = await call(TeamMemberList, `${server.api}/teams/${outsider.teamId}/members`, {
      headers: as(user),
    });
    expectError(members, 404, {
      type: "not_found_error",
      code: "team_not_found",
    });
  });

  it("patches name and description", async () => {
    const team = bodyOf(await createTeam({ name: "Before", description: "old" }));
    const res = await call(Team, `${server.api}/teams/${team.id}`, {
      method: "PATCH",
      headers: as(user),
      body: { name: "After", description: null },
    });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      id: team.id,
      name: "After",
      description: null,
    });
    expect(new Date(res.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(team.updatedAt).getTime());
    const again = await call(Team, `${server.api}/teams/${team.id}`, {
      headers: as(user),
    });
    expect(bodyOf(again).name).toBe("After");
  });

  it("refuses to patch another team", async () => {
    const res = await call(Team, `${server.api}/teams/${outsider.teamId}`, {
      method: "PATCH",
      headers: as(user),
      body: { name: "Mine now" },
    });
    expectError(res, 404, { type: "not_found_error", code: "team_not_found" });
    const check = await call(Team, `${server.api}/teams/${outsider.teamId}`, {
      headers: as(outsider),
    });
    expect(bodyOf(check).name).not.toBe("Mine now");
  });
});

describe("leaving", () => {
  it("refuses to let the last owner leave", async () => {
    const team = bodyOf(await createTeam({ name: "Solo" }));
    const res = await call(TeamLeaveResult, `${server.api}/teams/${team.id}/leave`, {
      method: "POST",
      headers: as(user),
      body: {},
    });
    expectError(res, 400, {
      type: "invalid_request_error",
      code: "last_owner_cannot_leave",
    });
    const members = await call(TeamMemberList, `${server.api}/teams/${team.id}/members`, {
      headers: as(user),
    });
    expect(bodyOf(members).data).toHaveLength(1);
  });

  it("refuses the personal team's last owner too", async () => {
    const res = await call(TeamLeaveResult, `${server.api}/teams/${user.teamId}/leave`, {
      method: "POST",
      headers: as(user),
      body: {},
    });
    expectError(res, 400, {
      type: "invalid_request_error",
      code: "last_owner_cannot_leave",
    });
  });

  it("answers 404 for a team the caller is not in", async () => {
    const res = await call(TeamLeaveResult, `${server.api}/teams/${outsider.teamId}/leave`, {
      method: "POST",
      headers: as(user),
      body: {},
    });
    expectError(res, 404, { type: "not_found_error", code: "team_not_found" });
  });
});

describe("credentials bound to a team", () => {
  it("cannot create, change or leave teams: 403 session_required", async () => {
    const key = await mintApiKey(server, user, ["*"]);
    expectError(await createTeam({ name: "By key" }, bearer(key)), 403, {
      type: "authorization_error",
      code: "session_required",
    });
    const patch = await call(Team, `${server.api}/teams/${user.teamId}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { name: "x" },
    });
    expectError(patch, 403, {
      type: "authorization_error",
      code: "session_required",
    });
    const leave = await call(TeamLeaveResult, `${server.api}/teams/${user.teamId}/leave`, {
      method: "POST",
      headers: bearer(key),
      body: {},
    });
    expectError(leave, 403, {
      type: "authorization_error",
      code: "session_required",
    });
  });

  it("see only their own team", async () => {
    const other = bodyOf(await createTeam({ name: "Not for keys" }));
    const key = await mintApiKey(server, user, ["*"]);
    const list = await call(TeamList, `${server.api}/teams`, { headers: bearer(key) });
    expect(bodyOf(list).data.map((t) => t.id)).toEqual([user.teamId]);
    expectError(await call(Team, `${server.api}/teams/${other.id}`, { headers: bearer(key) }), 404, {
      type: "not_found_error",
      code: "team_not_found",
    });
  });

  it("plugin tokens act as the user and may create a team", async () => {
    const token = await mintPluginToken(server, user.userId);
    const res = await createTeam({ name: "From the plugin" }, bearer(token));
    expectStatus(res, 201);
    expect(res.body.role).toBe("owner");
  });
});
