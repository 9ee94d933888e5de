import {
  ApiKeyList,
  ApiKeyWithSecret,
  DeletedObject,
  Evaluation,
  EvaluationList,
  Team,
} from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation, expectError, expectStatus, SSE_BODY } from "./helpers/assertions";
import {
  bearer,
  bodyOf,
  call,
  mintApiKey,
  mintOAuthToken,
  sessionHeaders,
  signUp,
  type TestUser,
} from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let owner: TestUser;
let other: TestUser;
let evaluationId: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, "owner");
  other = await signUp(server, "other");
  evaluationId = (await createEvaluation(server.api, sessionHeaders(server, owner))).id;
});
afterAll(() => server?.close());

const list = (headers: Record<string, string>) =>
  call(EvaluationList, `${server.api}/evaluations`, { headers });
const create = (headers: Record<string, string>, body: Record<string, unknown> = SSE_BODY) =>
  call(Evaluation, `${server.api}/evaluations`, { method: "POST", headers, body });

describe("API key scopes", () => {
  it("lets evaluations:read read but not write, naming the missing scope", async () => {
    const key = await mintApiKey(server, owner, ["evaluations:read"]);
    const res = await list(bearer(key));
    expectStatus(res, 200);
    expect(res.body.data.map((e) => e.id)).toContain(evaluationId);
    expect(
      (
        await call(Evaluation, `${server.api}/evaluations/${evaluationId}`, {
          headers: bearer(key),
        })
      ).status,
    ).toBe(200);

    const denied = await create(bearer(key));
    expectError(denied, 403, {
      type: "authorization_error",
      code: "missing_required_scope",
    });
    expect(denied.body.error.message).toContain("evaluations:write");
    const patch = await call(Evaluation, `${server.api}/evaluations/${evaluationId}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { name: "x" },
    });
    expectError(patch, 403, {
      type: "authorization_error",
      code: "missing_required_scope",
    });
  });

  it("lets evaluations:write write but not read", async () => {
    const key = await mintApiKey(server, owner, ["evaluations:write"]);
    expect((await create(bearer(key))).status).toBe(201);
    const denied = await list(bearer(key));
    expectError(denied, 403, {
      type: "authorization_error",
      code: "missing_required_scope",
    });
    expect(denied.body.error.message).toContain("evaluations:read");
  });

  it("grants the whole family with evaluations:*", async () => {
    const key = await mintApiKey(server, owner, ["evaluations:*"]);
    expect((await list(bearer(key))).status).toBe(200);
    expect((await create(bearer(key))).status).toBe(201);
  });

  it("grants everything with *", async () => {
    const key = await mintApiKey(server, owner, ["*"]);
    expect((await list(bearer(key))).status).toBe(200);
    expect((await create(bearer(key))).status).toBe(201);
  });

  it("does not let another family's wildcard stand in", async () => {
    const key = await mintApiKey(server, owner, ["templates:*", "ratings:*"]);
    expectError(await list(bearer(key)), 403, {
      type: "authorization_error",
      code: "missing_required_scope",
    });
  });
});

describe("OAuth scopes", () => {
  const token = (scope: string) => mintOAuthToken(server, { sub: owner.userId, team: owner.teamId, scope });

  it("checks the scope claim the same way", async () => {
    const reader = await token("evaluations:read");
    expect((await list(bearer(reader))).status).toBe(200);
    const denied = await create(bearer(reader));
    expectError(denied, 403, {
      type: "authorization_error",
      code: "missing_required_scope",
    });
    expect(denied.body.error.message).toContain("evaluations:write");

    expect((await create(bearer(await token("evaluations:*")))).status).toBe(201);
    expect((await create(bearer(await token("*")))).status).toBe(201);
    expectError(await list(bearer(await token("ratings:read"))), 403, {
      type: "authorization_error",
      code: "missing_required_scope",
    });
  });
});

describe("team binding", () => {
  it("refuses a key of team A naming team B with 403 team_mismatch", async () => {
    const key = await mintApiKey(server, owner, ["*"]);
    const res = await create(bearer(key), {
      ...SSE_BODY,
      teamId: other.teamId,
    });
    expectError(res, 403, {
      type: "authorization_error",
      code: "team_mismatch",
      param: "teamId",
    });
    const listed = await call(EvaluationList, `${server.api}/evaluations?teamId=${other.teamId}`, {
      headers: bearer(key),
    });
    expectError(listed, 403, {
      type: "authorization_error",
      code: "team_mismatch",
      param: "teamId",
    });
  });

  it("refuses a key of team A naming team B even when the key's user is in both", async () => {
    const shared = bodyOf(
      await call(Team, `${server.api}/teams`, {
        method: "POST",
        headers: sessionHeaders(server, owner),
        body: { name: "Shared" },
      }),
    );
    const key = await mintApiKey(server, owner, ["*"]);
    const res = await create(bearer(key), {
      ...SSE_BODY,
      teamId: shared.id,
    });
    expectError(res, 403, {
      type: "authorization_error",
      code: "team_mismatch",
      param: "teamId",
    });
    // The session of the same user may.
    expect(
      (
        await create(sessionHeaders(server, owner), {
          ...SSE_BODY,
          teamId: shared.id,
        })
      ).status,
    ).toBe(201);
  });

  it("hides team B's evaluation from a key of team A with 404 evaluation_not_found", async () => {
    const theirs = await createEvaluation(server.api, sessionHeaders(server, other));
    const key = await mintApiKey(server, owner, ["*"]);
    const res = await call(Evaluation, `${server.api}/evaluations/${theirs.id}`, {
      headers: bearer(key),
    });
    expectError(res, 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
    const patch = await call(Evaluation, `${server.api}/evaluations/${theirs.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { name: "mine" },
    });
    expectError(patch, 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
    const del = await call(DeletedObject, `${server.api}/evaluations/${theirs.id}`, {
      method: "DELETE",
      headers: bearer(key),
    });
    expectError(del, 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
    const listed = await list(bearer(key));
    expect(bodyOf(listed).data.map((e) => e.id)).not.toContain(theirs.id);
  });

  it("keeps a key of the personal team away from the user's other teams", async () => {
    const team = await call(Team, `${server.api}/teams`, {
      method: "POST",
      headers: sessionHeaders(server, owner),
      body: { name: "Elsewhere" },
    });
    const there = await createEvaluation(server.api, sessionHeaders(server, owner), {
      ...SSE_BODY,
      teamId: bodyOf(team).id,
    });
    const key = await mintApiKey(server, owner, ["*"]);
    expectError(
      await call(Evaluation, `${server.api}/evaluations/${there.id}`, {
        headers: bearer(key),
      }),
      404,
      {
        type: "not_found_error",
        code: "evaluation_not_found",
      },
    );
  });
});

describe("session-only routes", () => {
  it("refuse API keys and OAuth tokens with 403 session_required", async () => {
    const key = await mintApiKey(server, owner, ["*"]);
    const oauth = await mintOAuthToken(server, {
      sub: owner.userId,
      team: owner.teamId,
      scope: "*",
    });
    for (const credential of [key, oauth]) {
      expectError(await call(ApiKeyList, `${server.api}/api-keys`, { headers: bearer(credential) }), 403, {
        type: "authorization_error",
        code: "session_required",
      });
      const mint = await call(ApiKeyWithSecret, `${server.api}/api-keys`, {
        method: "POST",
        headers: bearer(credential),
        body: { name: "k", scopes: ["*"] },
      });
      expectError(mint, 403, {
        type: "authorization_error",
        code: "session_required",
      });
      const revoke = await call(DeletedObject, `${server.api}/api-keys/key_x`, {
        method: "DELETE",
        headers: bearer(credential),
      });
      expectError(revoke, 403, {
        type: "authorization_error",
        code: "session_required",
      });
    }
  });
});
