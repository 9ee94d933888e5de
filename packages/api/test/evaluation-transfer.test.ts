import { ComparisonList, Evaluation, EvaluationTransfer, UploadedFile, Usage } from "@rubricon/contracts";
import { billingPeriod } from "@rubricon/core";
import { autouserRuns, evaluations, events, files, ratings, usageCounters } from "@rubricon/db";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createEvaluation, expectError, expectStatus } from "./helpers/assertions";
import { insertAutouser, runAutousers } from "./helpers/autousers";
import {
  bearer,
  bodyOf,
  call,
  mintApiKey,
  readAnswer,
  sessionHeaders,
  signUp,
  type TestUser,
} from "./helpers/clients";
import { PNG, uploadFile } from "./helpers/files";
import { runningEvaluation, shareRate, startPublicRater } from "./helpers/ratings";
import { startTestServer, type TestServer } from "./helpers/server";
import { joinTeam, shareWith } from "./helpers/sharing";
import { createTeam } from "./helpers/webhooks";

let server: TestServer;
let owner: TestUser;
let member: TestUser;
let viewer: TestUser;
/** A second team `owner` created, so owns. */
let other: string;

const as = (who: TestUser) => sessionHeaders(server, who);
const transfer = (headers: Record<string, string>, id: string, body: unknown) =>
  call(EvaluationTransfer, `${server.api}/evaluations/${id}/transfer`, { method: "POST", headers, body });
/** The file a single-design comparison shows. */
const fileIdOf = (stimulus: { kind: string; fileId?: string | null }) =>
  stimulus.kind === "single" ? (stimulus.fileId ?? null) : null;
const eventsOf = (teamId: string, type: string, objectId: string) =>
  server.database.db
    .select()
    .from(events)
    .where(and(eq(events.teamId, teamId), eq(events.type, type), eq(events.objectId, objectId)));

beforeAll(async () => {
  server = await startTestServer({
    sources: "it adds system personas, which every team on a shared server lists",
  });
  [owner, member, viewer] = await Promise.all([
    signUp(server, "move-owner"),
    signUp(server, "move-member"),
    signUp(server, "move-viewer"),
  ]);
  other = await createTeam(server, owner, "Second team");
  // `member` is a plain member of `other`, so it may not move evaluations into it.
  await joinTeam(server, owner, member, "member", other);
}, 240_000);
afterAll(() => server?.close());

describe("POST /evaluations/{id}/transfer", () => {
  it("moves the evaluation with its ratings, files, runs and shares; links keep working; both teams hear of it", async () => {
    const headers = as(owner);
    const file = bodyOf(
      await readAnswer(
        UploadedFile,
        await uploadFile(server.api, headers, { bytes: PNG, filename: "mock.png", type: "image/png" }),
      ),
    );
    const teamAutouser = await insertAutouser(server, owner.teamId, "Old team's shopper");
    const systemAutouser = await insertAutouser(server, null, "System shopper");
    const { evaluation, comparisonIds } = await runningEvaluation(server, headers, {
      count: 2,
      extra: {
        shareAccess: "ANYONE_WITH_LINK",
        designUrls: [
          { url: "https://example.com/0", label: "Design 0" },
          { fileId: file.id, stimulusType: "IMAGE", label: "Mock-up" },
        ],
        selectedAutousers: [
          { autouserId: teamAutouser, agentCount: 1 },
          { autouserId: systemAutouser, agentCount: 1 },
        ],
      },
    });
    const rater = await startPublicRater(server, evaluation.shareToken);
    expectStatus(rater, 201);
    expectStatus(
      await shareRate(server, evaluation.shareToken, rater.cookie, {
        comparisonId: comparisonIds[0],
        dimensionRatings: { overall: 5 },
      }),
      201,
    );
    await shareWith(server, owner, evaluation.id, viewer, "VIEWER");
    // A finished run: history moves along; only active runs block a move.
    const key = await mintApiKey(server, owner, ["*"]);
    expectStatus(await runAutousers(server, key, evaluation.id, { autouserIds: [systemAutouser] }), 202);
    await server.database.db
      .update(autouserRuns)
      .set({ status: "completed" })
      .where(eq(autouserRuns.evaluationId, evaluation.id));
    const usedBefore = bodyOf(await call(Usage, `${server.api}/usage?teamId=${other}`, { headers })).used
      .evals_mo;

    const res = await transfer(headers, evaluation.id, { teamId: other });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      object: "evaluation_transfer",
      fromTeamId: owner.teamId,
      toTeamId: other,
      moved: { comparisons: 2, ratings: 1, files: 1, runs: 1, shares: 1 },
      droppedAutouserIds: [teamAutouser],
    });
    expect(res.body.evaluation.teamId).toBe(other);
    expect(res.body.evaluation.selectedAutousers).toEqual([{ autouserId: systemAutouser, agentCount: 1 }]);

    const db = server.database.db;
    const [row] = await db.select().from(evaluations).where(eq(evaluations.id, evaluation.id));
    expect(row!.teamId).toBe(other);
    expect(row!.shareToken).toBe(evaluation.shareToken);
    for (const r of await db.select().from(ratings).where(eq(ratings.evaluationId, evaluation.id)))
      expect(r.teamId).toBe(other);
    const [moved] = await db.select().from(files).where(eq(files.id, file.id));
    expect(moved!.teamId).toBe(other);
    for (const r of await db.select().from(autouserRuns).where(eq(autouserRuns.evaluationId, evaluation.id)))
      expect(r.teamId).toBe(other);

    // It counts toward the target team's quota.
    const usedAfter = bodyOf(await call(Usage, `${server.api}/usage?teamId=${other}`, { headers })).used
      .evals_mo;
    expect(usedAfter).toBe(usedBefore + 1);

    // One event in each team, each naming where it came from.
    const [out] = await eventsOf(owner.teamId, "evaluation.transferred_out", evaluation.id);
    const [arrived] = await eventsOf(other, "evaluation.transferred_in", evaluation.id);
    expect(out!.object).toMatchObject({ id: evaluation.id, teamId: other, previous_team_id: owner.teamId });
    expect(arrived!.object).toMatchObject({
      id: evaluation.id,
      teamId: other,
      previous_team_id: owner.teamId,
    });

    // The share link still rates, the direct share still reads, and the file is readable from the new team.
    const later = await startPublicRater(server, evaluation.shareToken);
    expectStatus(later, 201);
    expectStatus(
      await shareRate(server, evaluation.shareToken, later.cookie, {
        comparisonId: comparisonIds[1],
        dimensionRatings: { overall: 4 },
      }),
      201,
    );
    const seen = await call(Evaluation, `${server.api}/evaluations/${evaluation.id}`, {
      headers: as(viewer),
    });
    expectStatus(seen, 200);
    expect(seen.body.teamId).toBe(other);
    const download = await fetch(`${server.api}/files/${file.id}`, { headers, redirect: "manual" });
    expect(download.status).toBe(302);

    // The old team's key no longer reaches it.
    expectError(
      await call(z.never(), `${server.api}/evaluations/${evaluation.id}`, { headers: bearer(key) }),
      404,
      {
        type: "not_found_error",
        code: "evaluation_not_found",
      },
    );
  }, 60_000);

  it("leaves a file other evaluations of the old team show where it is, and gives the moved one a copy", async () => {
    const headers = as(owner);
    const oldKey = bearer(await mintApiKey(server, owner, ["*"]));
    const newKey = bearer(await mintApiKey(server, owner, ["*"], other));
    const file = bodyOf(
      await readAnswer(
        UploadedFile,
        await uploadFile(server.api, headers, { bytes: PNG, filename: "shared.png", type: "image/png" }),
      ),
    );
    const designs = [{ fileId: file.id, stimulusType: "IMAGE", label: "Shared mock-up" }];
    const moving = await createEvaluation(server.api, headers, {
      name: "Moves",
      type: "SSE",
      designUrls: designs,
    });
    const staying = await createEvaluation(server.api, headers, {
      name: "Stays",
      type: "SSE",
      designUrls: designs,
    });

    const res = await transfer(headers, moving.id, { teamId: other });
    expectStatus(res, 200);
    expect(res.body.moved.files).toBe(1);

    // The old team still has the file: readable, still shown by its evaluation, usable by a new one.
    expect(
      (await fetch(`${server.api}/files/${file.id}`, { headers: oldKey, redirect: "manual" })).status,
    ).toBe(302);
    const stayed = await call(ComparisonList, `${server.api}/evaluations/${staying.id}/comparisons`, {
      headers: oldKey,
    });
    expect(stayed.ok && fileIdOf(stayed.body.data[0]!.stimulus)).toBe(file.id);
    await createEvaluation(server.api, oldKey, { name: "Uses it later", type: "SSE", designUrls: designs });

    // The moved evaluation shows a copy of its own in the new team, which the old team cannot read.
    const movedList = await call(ComparisonList, `${server.api}/evaluations/${moving.id}/comparisons`, {
      headers: newKey,
    });
    const copyId = movedList.ok ? fileIdOf(movedList.body.data[0]!.stimulus) : null;
    expect(copyId).toMatch(/^file_/);
    expect(copyId).not.toBe(file.id);
    expect(
      (await fetch(`${server.api}/files/${copyId}`, { headers: newKey, redirect: "manual" })).status,
    ).toBe(302);
    expect(
      (await fetch(`${server.api}/files/${copyId}`, { headers: oldKey, redirect: "manual" })).status,
    ).toBe(404);

    // The copy shares the original's bytes: deleting it leaves the original's bytes in place.
    expectStatus(
      await call(z.unknown(), `${server.api}/files/${copyId}`, { method: "DELETE", headers: newKey }),
      200,
    );
    const download = await fetch(`${server.api}/files/${file.id}`, { headers: oldKey, redirect: "manual" });
    const bytes = new Uint8Array(
      await (await fetch(new URL(download.headers.get("location")!, server.url))).arrayBuffer(),
    );
    expect(bytes).toEqual(new Uint8Array(PNG));
  }, 60_000);

  it("refuses while runs are queued or running, and moves once they are stopped", async () => {
    const key = await mintApiKey(server, owner, ["*"]);
    const autouser = await insertAutouser(server, null, "Queued shopper");
    const { evaluation } = await runningEvaluation(server, as(owner));
    expectStatus(await runAutousers(server, key, evaluation.id, { autouserIds: [autouser] }), 202);
    const refused = await transfer(as(owner), evaluation.id, { teamId: other });
    expectError(refused, 409, { type: "invalid_request_error", code: "evaluation_runs_active" });
    expect(refused.ok ? null : refused.body.error.message).toMatch(/stop-autousers/);
    const [still] = await server.database.db
      .select()
      .from(evaluations)
      .where(eq(evaluations.id, evaluation.id));
    expect(still!.teamId).toBe(owner.teamId);

    const stopped = await call(z.unknown(), `${server.api}/evaluations/${evaluation.id}/stop-autousers`, {
      method: "POST",
      headers: bearer(key),
      body: {},
    });
    expect(stopped.status).toBeLessThan(300);
    expectStatus(await transfer(as(owner), evaluation.id, { teamId: other }), 200);
  }, 60_000);

  it("refuses the same team, a team you only belong to, a stranger's team and a non-admin of the source", async () => {
    const evaluation = await createEvaluation(server.api, as(owner));
    expectError(await transfer(as(owner), evaluation.id, { teamId: owner.teamId }), 409, {
      type: "invalid_request_error",
      code: "evaluation_same_team",
      param: "teamId",
    });
    expectError(await transfer(as(owner), evaluation.id, { teamId: member.teamId }), 404, {
      type: "not_found_error",
      code: "team_not_found",
      param: "teamId",
    });
    expectError(await transfer(as(owner), evaluation.id, { teamId: "team_nope" }), 404, {
      type: "not_found_error",
      code: "team_not_found",
      param: "teamId",
    });
    // `member` owns its personal team but is only a member of `other`.
    const own = await createEvaluation(server.api, as(member));
    expectError(await transfer(as(member), own.id, { teamId: other }), 403, {
      type: "authorization_error",
      code: "insufficient_role",
      param: "teamId",
    });
    // Moving out of `other` needs an admin of `other` too.
    const inOther = await createEvaluation(server.api, as(owner), {
      name: "Of the second team",
      type: "SSE",
      teamId: other,
      designUrls: [{ url: "https://example.com/x" }],
    });
    expectError(await transfer(as(member), inOther.id, { teamId: member.teamId }), 403, {
      type: "authorization_error",
      code: "insufficient_role",
    });
    // Someone who only sees it through a share cannot move it.
    await shareWith(server, owner, evaluation.id, viewer, "VIEWER");
    expectError(await transfer(as(viewer), evaluation.id, { teamId: viewer.teamId }), 403, {
      type: "authorization_error",
      code: "insufficient_permission",
    });
    expectError(await transfer(as(owner), "eval_nope", { teamId: other }), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
  });

  it("refuses bad input, keys and a full target quota, and changes nothing", async () => {
    const evaluation = await createEvaluation(server.api, as(owner));
    expectError(await transfer(as(owner), evaluation.id, {}), 400, {
      type: "invalid_request_error",
      code: "parameter_missing",
      param: "teamId",
    });
    expectError(await transfer(as(owner), evaluation.id, { teamId: 7 }), 400, {
      type: "invalid_request_error",
      param: "teamId",
    });
    expectError(await transfer(as(owner), evaluation.id, { teamId: other, extra: true }), 400, {
      type: "invalid_request_error",
    });
    const key = await mintApiKey(server, owner, ["*"]);
    expectError(await transfer(bearer(key), evaluation.id, { teamId: other }), 403, {
      type: "authorization_error",
    });

    // A Free team that has used its 5 evaluations this month takes no more, moved or created.
    const full = await createTeam(server, owner, "Full team");
    const now = new Date();
    await server.database.db
      .insert(usageCounters)
      .values({ teamId: full, periodStart: billingPeriod(now).start, metric: "evals_mo", count: 5 });
    expectError(await transfer(as(owner), evaluation.id, { teamId: full }), 429, {
      type: "rate_limit_error",
      code: "quota_exceeded",
    });
    const [row] = await server.database.db
      .select()
      .from(evaluations)
      .where(eq(evaluations.id, evaluation.id));
    expect(row!.teamId).toBe(owner.teamId);
    expect(await eventsOf(owner.teamId, "evaluation.transferred_out", evaluation.id)).toEqual([]);
  });
});
