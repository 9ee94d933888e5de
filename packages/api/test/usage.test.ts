import { EvaluationDryRun, Team, Usage } from "@rubricon/contracts";
import { fixedClock, setTeamLimits, setTeamPlan } from "@rubricon/core";
import { teamMembers } from "@rubricon/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation, expectError, expectStatus, SSE_BODY } from "./helpers/assertions";
import {
  bearer,
  bodyOf,
  call,
  callRaw,
  mintApiKey,
  sessionHeaders,
  signUp,
  type TestUser,
} from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

const clock = fixedClock(new Date("2026-02-14T08:30:00.000Z"));
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(() => server?.close());

const core = () => ({ db: server.app.services.db, clock, baseUrl: server.url });
const getUsage = (headers: Record<string, string>, query = "") =>
  call(Usage, `${server.api}/usage${query}`, { headers });
const changePlan = (user: TestUser, teamId: string, plan: string, headers = sessionHeaders(server, user)) =>
  call(Usage, `${server.api}/teams/${teamId}/plan`, { method: "POST", headers, body: { plan } });

describe("GET /usage", () => {
  it("answers the contract's Usage object for the credential's team", async () => {
    const user = await signUp(server, "usage", { plan: "team" });
    const key = await mintApiKey(server, user, ["evaluations:write"]);
    await createEvaluation(server.api, bearer(key));
    const dry = await call(EvaluationDryRun, `${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: { ...SSE_BODY, dryRun: true },
    });
    expect(dry.status).toBe(200);
    const res = await getUsage(bearer(key));
    expectStatus(res, 200);
    expect(res.body).toEqual({
      object: "usage",
      teamId: user.teamId,
      plan: "team",
      period: { start: "2026-02-01T00:00:00.000Z", end: "2026-03-01T00:00:00.000Z" },
      limits: { rpm: 120, autouser_ratings_mo: 500, human_ratings_mo: 5000, evals_mo: 100 },
      used: { autouser_ratings_mo: 0, human_ratings_mo: 0, evals_mo: 1 },
      remaining: { autouser_ratings_mo: 500, human_ratings_mo: 5000, evals_mo: 99 },
    });
  });

  it("reports any of a signed-in user's teams, and no other", async () => {
    const user = await signUp(server, "member-of-two", { plan: "free" });
    const stranger = await signUp(server, "stranger");
    const own = await getUsage(sessionHeaders(server, user));
    expect(own.body).toMatchObject({ teamId: user.teamId, plan: "free" });
    await server.database.db
      .insert(teamMembers)
      .values({ teamId: stranger.teamId, userId: user.userId, role: "member" });
    const other = await getUsage(sessionHeaders(server, user), `?teamId=${stranger.teamId}`);
    expect(other.body).toMatchObject({ teamId: stranger.teamId, plan: "pro" });
    const outsider = await signUp(server, "outsider");
    expectError(await getUsage(sessionHeaders(server, outsider), `?teamId=${user.teamId}`), 404, {
      type: "not_found_error",
      code: "team_not_found",
    });
    const key = await mintApiKey(server, user, ["*"]);
    expectError(await getUsage(bearer(key), `?teamId=${stranger.teamId}`), 403, {
      type: "authorization_error",
      code: "team_mismatch",
    });
  });

  it("shows an Enterprise team's custom limits and unlimited evaluations as -1", async () => {
    const user = await signUp(server, "enterprise", { plan: "enterprise" });
    await setTeamLimits(core(), user.teamId, { requestsPerMinute: 3000, humanRatingsPerMonth: 100_000 });
    const res = await getUsage(sessionHeaders(server, user));
    expect(res.body).toMatchObject({
      plan: "enterprise",
      limits: { rpm: 3000, autouser_ratings_mo: 2000, human_ratings_mo: 100_000, evals_mo: -1 },
      remaining: { human_ratings_mo: 100_000, evals_mo: -1 },
    });
  });

  it("needs credentials", async () => {
    expectError(await getUsage({}), 401, { type: "authentication_error" });
  });
});

describe("POST /teams/{id}/plan", () => {
  it("lets the owner switch between Free, Team and Pro and answers the new limits", async () => {
    const owner = await signUp(server, "owner", { plan: "free" });
    for (const [plan, rpm, evals] of [
      ["team", 120, 100],
      ["pro", 600, -1],
      ["free", 60, 5],
    ] as const) {
      const res = await changePlan(owner, owner.teamId, plan);
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ plan, limits: { rpm, evals_mo: evals } });
      const team = await call(Team, `${server.api}/teams/${owner.teamId}`, {
        headers: sessionHeaders(server, owner),
      });
      expect(bodyOf(team).plan).toBe(plan);
    }
  });

  it("refuses members who are not owners, API keys, and teams the caller is not in", async () => {
    const owner = await signUp(server, "plan-owner", { plan: "free" });
    const member = await signUp(server, "plan-member");
    await server.database.db
      .insert(teamMembers)
      .values({ teamId: owner.teamId, userId: member.userId, role: "admin" });
    expectError(await changePlan(member, owner.teamId, "pro"), 403, {
      type: "authorization_error",
      code: "insufficient_role",
    });
    const key = await mintApiKey(server, owner, ["*"]);
    expectError(await changePlan(owner, owner.teamId, "pro", bearer(key)), 403, {
      type: "authorization_error",
      code: "session_required",
    });
    const outsider = await signUp(server, "plan-outsider");
    expectError(await changePlan(outsider, owner.teamId, "pro"), 404, {
      type: "not_found_error",
      code: "team_not_found",
    });
    const usage = await getUsage(sessionHeaders(server, owner));
    expect(bodyOf(usage).plan).toBe("free");
  });

  it("keeps Enterprise out of self-service, in both directions", async () => {
    const owner = await signUp(server, "to-enterprise", { plan: "pro" });
    expectError(await changePlan(owner, owner.teamId, "enterprise"), 400, {
      type: "invalid_request_error",
      code: "plan_not_self_service",
      param: "plan",
    });
    await setTeamPlan(core(), owner.teamId, "enterprise");
    expectError(await changePlan(owner, owner.teamId, "free"), 400, {
      type: "invalid_request_error",
      code: "plan_not_self_service",
      param: "plan",
    });
  });

  it("validates the plan", async () => {
    const owner = await signUp(server, "bad-plan");
    expectError(await changePlan(owner, owner.teamId, "platinum"), 400, {
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "plan",
    });
  });
});

describe("OpenAPI document", () => {
  it("documents usage under the Usage tag with rate-limit headers", async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is asserted field by field
    const doc = (await callRaw(`${server.api}/openapi.json`)).body as any;
    const get = doc.paths["/usage"].get;
    expect(get.tags).toEqual(["Usage"]);
    expect(get["x-unmetered"]).toBe(true);
    expect(get.responses["200"].headers).toHaveProperty("X-RateLimit-Remaining");
    expect(doc.paths["/teams/{id}/plan"].post.tags).toEqual(["Usage"]);
    expect(doc.paths["/auth/whoami"].get["x-unmetered"]).toBe(true);
    expect(doc.components.responses.Error429.headers).toHaveProperty("Retry-After");
    expect(doc.components.schemas).toHaveProperty("Usage");
  });
});
