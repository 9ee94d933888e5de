import {
  Comparison,
  ComparisonList,
  DeletedObject,
  Evaluation,
  EvaluationInvite,
  EvaluationList,
  EvaluationShare,
  EvaluationShareList,
  InviteAccepted,
} from "@rubricon/contracts";
import { emailOutbox } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
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
import { runningEvaluation } from "./helpers/ratings";
import { startTestServer, type TestServer } from "./helpers/server";
import { invitationTokenFor, joinTeam, notificationsOf, shareWith } from "./helpers/sharing";

let server: TestServer;
let alice: TestUser; // owns the evaluations (team A)
let bob: TestUser; // another team; receives shares
let carol: TestUser; // a third team
let teammate: TestUser; // a second member of alice's team

beforeAll(async () => {
  server = await startTestServer();
  [alice, bob, carol, teammate] = await Promise.all([
    signUp(server, "alice"),
    signUp(server, "bob"),
    signUp(server, "carol"),
    signUp(server, "teammate"),
  ]);
  await joinTeam(server, alice, teammate, "member");
});
afterAll(() => server?.close());

const as = (who: TestUser) => sessionHeaders(server, who);
const sharesUrl = (id: string, rest = "") => `${server.api}/evaluations/${id}/shares${rest}`;
const draft = () => createEvaluation(server.api, as(alice), { ...SSE_BODY, name: "Shared draft" });

describe("who may share", () => {
  it("lets owners share with an existing user by id at once and tells them", async () => {
    const e = await draft();
    const res = await call(EvaluationShare, sharesUrl(e.id), {
      method: "POST",
      headers: as(alice),
      body: { userId: bob.userId, permission: "VIEWER" },
    });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({
      object: "evaluation_share",
      evaluationId: e.id,
      permission: "VIEWER",
      userId: bob.userId,
      inviteEmail: null,
      user: { id: bob.userId, email: bob.email },
    });
    expect(res.body.id).toMatch(/^shr_/);
    const inbox = await notificationsOf(server, bob);
    expect(inbox.data).toContainEqual(
      expect.objectContaining({
        kind: "evaluation.shared",
        read: false,
        data: expect.objectContaining({ evaluationId: e.id }),
      }),
    );
    const list = await call(EvaluationShareList, sharesUrl(e.id), { headers: as(bob) });
    expectStatus(list, 200);
    expect(list.body.data.map((s) => s.userId)).toEqual([bob.userId]);
  });

  it("by email, answers an invitation alike whether or not the address has an account, and names no user", async () => {
    const e = await draft();
    const registered = await signUp(server, "share-alike");
    const byEmail = (email: string) =>
      call(EvaluationInvite, sharesUrl(e.id), {
        method: "POST",
        headers: as(alice),
        body: { email, permission: "VIEWER" },
      });
    const known = await byEmail(registered.email.toUpperCase());
    const unknown = await byEmail(`nobody-${Date.now()}@example.com`);
    expectStatus(known, 201);
    expectStatus(unknown, 201);
    expect(Object.keys(known.body).sort()).toEqual(Object.keys(unknown.body).sort());
    expect(known.body).toMatchObject({
      object: "evaluation_invite",
      status: "pending",
      permission: "VIEWER",
    });
    expect(JSON.stringify(known.body)).not.toContain(registered.userId);
    // No access until they accept the invitation they were mailed.
    const read = async () =>
      (await call(Evaluation, `${server.api}/evaluations/${e.id}`, { headers: as(registered) })).status;
    expect(await read()).toBe(404);
    const token = await invitationTokenFor(server, registered.email);
    expectStatus(
      await call(InviteAccepted, `${server.api}/invites/${token}/accept`, {
        method: "POST",
        headers: as(registered),
      }),
      200,
    );
    expect(await read()).toBe(200);
    // An OWNER share names its person by id: an invitation gives VIEWER or EDITOR.
    expectError(
      await call(z.never(), sharesUrl(e.id), {
        method: "POST",
        headers: as(alice),
        body: { email: carol.email, permission: "OWNER" },
      }),
      400,
      { type: "invalid_request_error", code: "parameter_invalid", param: "permission" },
    );
  });

  it("mails one invitation per person and evaluation a day, however often its share is deleted and made again", async () => {
    const e = await draft();
    const target = await signUp(server, "share-bombed");
    const mails = async () =>
      (await server.database.db.select().from(emailOutbox).where(eq(emailOutbox.to, target.email))).length;
    for (let i = 0; i < 6; i++) {
      const invited = await call(EvaluationInvite, sharesUrl(e.id), {
        method: "POST",
        headers: as(alice),
        body: { email: target.email, permission: "VIEWER" },
      });
      expectStatus(invited, 201);
      expectStatus(
        await call(DeletedObject, `${server.api}/evaluations/${e.id}/invites/${invited.body.id}`, {
          method: "DELETE",
          headers: as(alice),
        }),
        200,
      );
    }
    expect(await mails()).toBe(1);
    const inbox = await notificationsOf(server, target);
    expect(inbox.data.filter((n) => n.kind === "evaluation.invited")).toHaveLength(1);
  });

  it("refuses viewers, lets editors share as viewer or editor, and keeps OWNER to owners", async () => {
    const e = await draft();
    const bobShare = await shareWith(server, alice, e.id, bob, "VIEWER");
    expectError(
      await call(EvaluationShare, sharesUrl(e.id), {
        method: "POST",
        headers: as(bob),
        body: { email: carol.email, permission: "VIEWER" },
      }),
      403,
      { type: "authorization_error", code: "insufficient_permission" },
    );
    expectStatus(
      await call(EvaluationShare, sharesUrl(e.id, `/${bobShare.id}`), {
        method: "PATCH",
        headers: as(alice),
        body: { permission: "EDITOR" },
      }),
      200,
    );
    expectError(
      await call(EvaluationShare, sharesUrl(e.id), {
        method: "POST",
        headers: as(bob),
        body: { userId: carol.userId, permission: "OWNER" },
      }),
      403,
      { type: "authorization_error", code: "insufficient_permission" },
    );
    const carolShare = await call(EvaluationShare, sharesUrl(e.id), {
      method: "POST",
      headers: as(bob),
      body: { userId: carol.userId, permission: "EDITOR" },
    });
    expectStatus(carolShare, 201);
    expectError(
      await call(EvaluationShare, sharesUrl(e.id, `/${carolShare.body.id}`), {
        method: "PATCH",
        headers: as(bob),
        body: { permission: "OWNER" },
      }),
      403,
      { type: "authorization_error", code: "insufficient_permission" },
    );
    // An editor can remove a viewer or editor; a viewer only themselves.
    expectStatus(
      await call(DeletedObject, sharesUrl(e.id, `/${carolShare.body.id}`), {
        method: "DELETE",
        headers: as(bob),
      }),
      200,
    );
    expectError(await call(Evaluation, `${server.api}/evaluations/${e.id}`, { headers: as(carol) }), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
  });

  it("refuses strangers, team members as targets, duplicates and bad bodies", async () => {
    const e = await draft();
    expectError(
      await call(EvaluationShare, sharesUrl(e.id), {
        method: "POST",
        headers: as(bob),
        body: { email: carol.email },
      }),
      404,
      { type: "not_found_error", code: "evaluation_not_found" },
    );
    expectError(
      await call(EvaluationShare, sharesUrl(e.id), {
        method: "POST",
        headers: as(alice),
        body: { email: teammate.email },
      }),
      400,
      { type: "invalid_request_error", code: "already_has_access" },
    );
    await shareWith(server, alice, e.id, bob, "VIEWER");
    expectError(
      await call(EvaluationShare, sharesUrl(e.id), {
        method: "POST",
        headers: as(alice),
        body: { email: bob.email },
      }),
      400,
      { type: "invalid_request_error", code: "already_has_access" },
    );
    expectError(
      await call(EvaluationShare, sharesUrl(e.id), {
        method: "POST",
        headers: as(alice),
        body: { permission: "VIEWER" },
      }),
      400,
      { type: "invalid_request_error", code: "parameter_missing", param: "email" },
    );
    expectError(
      await call(EvaluationShare, sharesUrl(e.id), {
        method: "POST",
        headers: as(alice),
        body: { email: carol.email, permission: "ADMIN" },
      }),
      400,
      { type: "invalid_request_error", code: "parameter_invalid", param: "permission" },
    );
    expectError(
      await call(EvaluationShare, sharesUrl(e.id, "/shr_doesnotexist"), {
        method: "PATCH",
        headers: as(alice),
        body: { permission: "EDITOR" },
      }),
      404,
      { type: "not_found_error", code: "share_not_found" },
    );
  });

  it("lets a holder give up their own share, after which the evaluation is gone for them", async () => {
    const e = await draft();
    const share = await shareWith(server, alice, e.id, bob, "VIEWER");
    expectStatus(await call(Evaluation, `${server.api}/evaluations/${e.id}`, { headers: as(bob) }), 200);
    expectStatus(
      await call(DeletedObject, sharesUrl(e.id, `/${share.id}`), { method: "DELETE", headers: as(bob) }),
      200,
    );
    expectError(await call(Evaluation, `${server.api}/evaluations/${e.id}`, { headers: as(bob) }), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
  });
});

/** What a share holder may do, route by route; each row is tried with each permission on fresh evaluations. */
describe("what each permission allows", () => {
  type Need = "VIEWER" | "EDITOR" | "OWNER";
  const RANK: Record<Need, number> = { VIEWER: 1, EDITOR: 2, OWNER: 3 };

  for (const permission of ["VIEWER", "EDITOR", "OWNER"] as const) {
    it(`${permission}: reads everything, and writes only what ${permission} allows`, async () => {
      const d = await draft();
      const run = await runningEvaluation(server, as(alice));
      await shareWith(server, alice, d.id, bob, permission);
      await shareWith(server, alice, run.evaluation.id, bob, permission);
      const [cmp] = bodyOf(
        await call(ComparisonList, `${server.api}/evaluations/${d.id}/comparisons`, { headers: as(alice) }),
      ).data;
      const r = (path: string) => `${server.api}/evaluations${path}`;
      const rows: { need: Need; method: string; path: string; body?: unknown }[] = [
        { need: "VIEWER", method: "GET", path: `/${d.id}` },
        { need: "VIEWER", method: "GET", path: `/${d.id}/comparisons` },
        { need: "VIEWER", method: "GET", path: `/${d.id}/comparisons/${cmp!.id}` },
        { need: "VIEWER", method: "GET", path: `/${run.evaluation.id}/ratings` },
        { need: "VIEWER", method: "GET", path: `/${run.evaluation.id}/results` },
        { need: "VIEWER", method: "GET", path: `/${run.evaluation.id}/agreement` },
        { need: "VIEWER", method: "GET", path: `/${run.evaluation.id}/export?format=json` },
        { need: "VIEWER", method: "GET", path: `/${run.evaluation.id}/public-raters` },
        { need: "VIEWER", method: "GET", path: `/${d.id}/shares` },
        { need: "EDITOR", method: "PATCH", path: `/${d.id}`, body: { name: "Renamed by a share holder" } },
        {
          need: "EDITOR",
          method: "POST",
          path: `/${d.id}/comparisons`,
          body: { url: "https://example.com/new" },
        },
        {
          need: "EDITOR",
          method: "PATCH",
          path: `/${d.id}/comparisons/${cmp!.id}`,
          body: { name: "Renamed" },
        },
        {
          need: "EDITOR",
          method: "POST",
          path: `/${run.evaluation.id}/ratings`,
          body: { comparisonId: run.comparisonIds[0], dimensionRatings: { overall: 5 } },
        },
        { need: "EDITOR", method: "GET", path: `/${d.id}/invites` },
        { need: "EDITOR", method: "GET", path: `/${d.id}/access-requests` },
        { need: "EDITOR", method: "DELETE", path: `/${d.id}/comparisons/${cmp!.id}` },
        { need: "VIEWER", method: "GET", path: `/${run.evaluation.id}/autouser-runs` },
        { need: "VIEWER", method: "GET", path: `/${run.evaluation.id}/autouser-status` },
        { need: "VIEWER", method: "GET", path: `/${run.evaluation.id}/ai-insights` },
        { need: "EDITOR", method: "POST", path: `/${run.evaluation.id}/ai-insights`, body: {} },
        {
          need: "EDITOR",
          method: "POST",
          path: `/${run.evaluation.id}/run-autousers`,
          body: { autouserIds: ["auto_first_time_visitor"] },
        },
        { need: "EDITOR", method: "POST", path: `/${run.evaluation.id}/stop-autousers`, body: {} },
        { need: "OWNER", method: "PATCH", path: `/${d.id}`, body: { shareAccess: "ANYONE_WITH_LINK" } },
        { need: "OWNER", method: "POST", path: `/${d.id}/share-token/rotate`, body: {} },
        {
          need: "OWNER",
          method: "POST",
          path: `/${run.evaluation.id}/ratings/bulk-delete`,
          body: { ids: ["rat_x"] },
        },
        { need: "OWNER", method: "PATCH", path: `/${run.evaluation.id}`, body: { status: "Ended" } },
        { need: "OWNER", method: "DELETE", path: `/${d.id}` },
      ];
      for (const row of rows) {
        const res = await callRaw(r(row.path), { method: row.method, headers: as(bob), body: row.body });
        const label = `${permission} ${row.method} ${row.path} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
        if (RANK[permission] >= RANK[row.need]) {
          expect(res.status, label).toBeLessThan(300);
        } else {
          expect(res.status, label).toBe(403);
          expect((res.body as { error: unknown }).error, label).toMatchObject({
            type: "authorization_error",
            code: "insufficient_permission",
          });
        }
      }
    });
  }

  it("a share does not reach the holder's API key, which acts on its own team only", async () => {
    const e = await draft();
    await shareWith(server, alice, e.id, bob, "OWNER");
    const key = await mintApiKey(server, bob, ["evaluations:*"]);
    expectError(await call(Evaluation, `${server.api}/evaluations/${e.id}`, { headers: bearer(key) }), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
  });
});

describe("the evaluation list", () => {
  it("shows a signed-in holder the evaluations shared with them, marked, between their own, page by page", async () => {
    const own = await createEvaluation(server.api, as(carol), { ...SSE_BODY, name: "Carol's own" });
    const shared = await createEvaluation(server.api, as(alice), { ...SSE_BODY, name: "For carol" });
    await shareWith(server, alice, shared.id, carol, "EDITOR");
    const newer = await createEvaluation(server.api, as(carol), { ...SSE_BODY, name: "Carol's newer" });
    const all = await call(EvaluationList, `${server.api}/evaluations`, { headers: as(carol) });
    expectStatus(all, 200);
    const ids = all.body.data.map((e) => e.id);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(own.id));
    expect(ids).toContain(shared.id);
    expect(all.body.data.find((e) => e.id === shared.id)?.sharedWithYou).toEqual({ permission: "EDITOR" });
    expect(all.body.data.find((e) => e.id === own.id)?.sharedWithYou).toBeUndefined();

    const walked: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = bodyOf(
        await call(
          EvaluationList,
          `${server.api}/evaluations?limit=1${after ? `&starting_after=${after}` : ""}`,
          {
            headers: as(carol),
          },
        ),
      );
      walked.push(...page.data.map((e) => e.id));
      if (!page.has_more) break;
      after = page.next_cursor;
    }
    expect(walked).toEqual(ids);
    const back = bodyOf(
      await call(EvaluationList, `${server.api}/evaluations?ending_before=${ids.at(-1)}`, {
        headers: as(carol),
      }),
    );
    expect(back.data.map((e) => e.id)).toEqual(ids.slice(0, -1));

    const filtered = bodyOf(
      await call(EvaluationList, `${server.api}/evaluations?teamId=${carol.teamId}`, { headers: as(carol) }),
    );
    expect(filtered.data.map((e) => e.id)).not.toContain(shared.id);
    const key = await mintApiKey(server, carol, ["evaluations:read"]);
    const byKey = bodyOf(await call(EvaluationList, `${server.api}/evaluations`, { headers: bearer(key) }));
    expect(byKey.data.map((e) => e.id)).not.toContain(shared.id);
    const got = bodyOf(
      await call(Evaluation, `${server.api}/evaluations/${shared.id}`, { headers: as(carol) }),
    );
    expect(got.sharedWithYou).toEqual({ permission: "EDITOR" });
  });

  it("filters shared evaluations by status too", async () => {
    const run = await runningEvaluation(server, as(alice));
    await shareWith(server, alice, run.evaluation.id, carol, "VIEWER");
    const running = bodyOf(
      await call(EvaluationList, `${server.api}/evaluations?status=Running`, { headers: as(carol) }),
    );
    expect(running.data.map((e) => e.id)).toContain(run.evaluation.id);
    const drafts = bodyOf(
      await call(EvaluationList, `${server.api}/evaluations?status=Draft`, { headers: as(carol) }),
    );
    expect(drafts.data.map((e) => e.id)).not.toContain(run.evaluation.id);
  });
});

describe("comparisons by an editor", () => {
  it("are written to the evaluation they were shared", async () => {
    const e = await draft();
    await shareWith(server, alice, e.id, bob, "EDITOR");
    const res = await call(Comparison, `${server.api}/evaluations/${e.id}/comparisons`, {
      method: "POST",
      headers: as(bob),
      body: { url: "https://example.com/by-bob" },
    });
    expectStatus(res, 201);
    const list = bodyOf(
      await call(ComparisonList, `${server.api}/evaluations/${e.id}/comparisons`, { headers: as(alice) }),
    );
    expect(list.data.map((c) => c.id)).toContain(res.body.id);
    expect(z.string().parse(res.body.evaluationId)).toBe(e.id);
  });
});
