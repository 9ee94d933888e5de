import {
  Autouser,
  AutouserList,
  AutouserRubric,
  AutouserRubricList,
  DeletedObject,
  Evaluation,
  Template,
} from "@rubricon/contracts";
import { assertAutousersUsable, loadAgentPersona } from "@rubricon/core";
import { autouserRubrics, teamMembers } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation, expectError, expectStatus } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let owner: TestUser;
let key: string;

const SYSTEM_IDS = [
  "auto_first_time_visitor",
  "auto_power_user",
  "auto_screen_reader_user",
  "auto_older_adult_low_vision",
  "auto_mobile_shopper_slow_network",
  "auto_accessibility_auditor",
];

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, "autousers");
  key = await mintApiKey(server, owner, ["autousers:*", "evaluations:*", "templates:*"]);
});
afterAll(() => server?.close());

const create = (body: Record<string, unknown> = {}, headers = bearer(key)) =>
  call(Autouser, `${server.api}/autousers`, {
    method: "POST",
    headers,
    body: { name: "Busy parent", role: "A parent shopping at night", ...body },
  });

const created = async (body: Record<string, unknown> = {}, headers = bearer(key)) => {
  const res = await create(body, headers);
  expectStatus(res, 201);
  return res.body;
};

const list = (query = "", headers = bearer(key)) =>
  call(AutouserList, `${server.api}/autousers${query ? `?${query}` : ""}`, { headers });

/** Every page of a list, following `next_cursor`. */
async function allIds(query: string, headers = bearer(key)): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = bodyOf(
      await list(
        [query, "limit=3", after ? `starting_after=${after}` : ""].filter(Boolean).join("&"),
        headers,
      ),
    );
    ids.push(...page.data.map((a) => a.id));
    if (!page.has_more) return ids;
    after = page.next_cursor;
  }
}

describe("creating and editing an autouser", () => {
  it("creates a persona with the defaults and reads it back", async () => {
    const res = await create({ goals: ["Buy a gift"], device: { kind: "mobile" } });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({
      object: "autouser",
      teamId: owner.teamId,
      isSystem: false,
      name: "Busy parent",
      role: "A parent shopping at night",
      description: "",
      goals: ["Buy a gift"],
      traits: [],
      expertise: "intermediate",
      accessibilityNeeds: [],
      device: { kind: "mobile", viewport: { width: 390, height: 844 }, network: "fast" },
      systemPrompt: null,
      status: "draft",
      visibility: "private",
      calibrationStatus: "uncalibrated",
      activeRubricId: null,
      sourceAutouserId: null,
      createdBy: owner.userId,
    });
    expect(res.body.id).toMatch(/^auto_/);
    const got = await call(Autouser, `${server.api}/autousers/${res.body.id}`, { headers: bearer(key) });
    expectStatus(got, 200);
    expect(got.body).toEqual(res.body);
  });

  it("changes only the fields a PATCH names; device parts merge and a new kind brings its viewport", async () => {
    const a = await created({
      accessibilityNeeds: ["low-vision"],
      device: { kind: "desktop", network: "slow-4g" },
      systemPrompt: "Be strict.",
    });
    const res = await call(Autouser, `${server.api}/autousers/${a.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { traits: ["Patient"], device: { kind: "mobile" }, status: "published", visibility: "public" },
    });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      traits: ["Patient"],
      accessibilityNeeds: ["low-vision"],
      systemPrompt: "Be strict.",
      device: { kind: "mobile", viewport: { width: 390, height: 844 }, network: "slow-4g" },
      status: "published",
      visibility: "public",
    });
    const viewport = await call(Autouser, `${server.api}/autousers/${a.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { device: { viewport: { width: 414, height: 896 } }, systemPrompt: null },
    });
    expect(bodyOf(viewport)).toMatchObject({
      device: { kind: "mobile", viewport: { width: 414, height: 896 }, network: "slow-4g" },
      systemPrompt: null,
    });
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ["empty name", { name: "" }, "name"],
    ["long name", { name: "x".repeat(201) }, "name"],
    ["missing role", { role: undefined }, "role"],
    ["unknown need", { accessibilityNeeds: ["telepathy"] }, "accessibilityNeeds[0]"],
    ["repeated need", { accessibilityNeeds: ["motor", "motor"] }, "accessibilityNeeds"],
    ["unknown device kind", { device: { kind: "watch" } }, "device.kind"],
    ["unknown network", { device: { network: "dial-up" } }, "device.network"],
    ["tiny viewport", { device: { viewport: { width: 10, height: 800 } } }, "device.viewport.width"],
    ["expertise", { expertise: "guru" }, "expertise"],
    ["too many goals", { goals: Array.from({ length: 21 }, (_, i) => `g${i}`) }, "goals"],
    ["unknown field", { capabilities: ["x"] }, "capabilities"],
    ["status", { status: "live" }, "status"],
    ["visibility", { visibility: "secret" }, "visibility"],
  ];
  for (const [what, body, param] of invalid) {
    it(`refuses ${what} naming ${param}`, async () => {
      expectError(await create(body), 400, { type: "invalid_request_error", param });
    });
  }
});

describe("system personas", () => {
  it("ships six published, public, read-only personas that differ in what changes ratings", async () => {
    const res = await list("source=system&limit=100");
    expectStatus(res, 200);
    const system = res.body.data;
    expect(system.map((a) => a.id).sort()).toEqual([...SYSTEM_IDS].sort());
    for (const a of system) {
      expect(a).toMatchObject({ isSystem: true, teamId: null, status: "published", visibility: "public" });
      expect(a.systemPrompt).toBeTruthy();
      expect(a.goals.length).toBeGreaterThan(0);
    }
    const byId = Object.fromEntries(system.map((a) => [a.id, a]));
    expect(byId.auto_screen_reader_user!.accessibilityNeeds).toContain("screen-reader");
    expect(byId.auto_older_adult_low_vision!.accessibilityNeeds).toContain("low-vision");
    expect(byId.auto_mobile_shopper_slow_network!.device).toMatchObject({
      kind: "mobile",
      network: "slow-3g",
    });
    expect(byId.auto_power_user!.expertise).toBe("expert");
    expect(byId.auto_first_time_visitor!.expertise).toBe("novice");
    // No two personas are the same rater.
    const shapes = system.map((a) => JSON.stringify([a.expertise, a.accessibilityNeeds, a.device]));
    expect(new Set(shapes).size).toBe(system.length);
  });

  it("comes with rubrics for the system templates it rates", async () => {
    const res = await call(AutouserRubricList, `${server.api}/autousers/auto_screen_reader_user/rubrics`, {
      headers: bearer(key),
    });
    expectStatus(res, 200);
    expect(res.body.data.map((r) => r.dimensionId).sort()).toEqual(["accessibility", "overall", "usability"]);
    for (const r of res.body.data) {
      expect(r).toMatchObject({ version: 1, isFrozen: false, frozenAt: null, krippendorffAlpha: null });
      expect(r.guidance.length).toBeGreaterThan(40);
    }
  });

  it("refuses PATCH, DELETE and rubric changes with autouser_read_only, pointing to duplicate", async () => {
    const id = "auto_power_user";
    const patch = await call(Autouser, `${server.api}/autousers/${id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { name: "Mine now" },
    });
    expectError(patch, 400, { type: "invalid_request_error", code: "autouser_read_only" });
    expect(patch.body.error.message).toContain(`/autousers/${id}/duplicate`);
    const del = await call(DeletedObject, `${server.api}/autousers/${id}`, {
      method: "DELETE",
      headers: bearer(key),
    });
    expectError(del, 400, { type: "invalid_request_error", code: "autouser_read_only" });
    const rubric = await call(AutouserRubric, `${server.api}/autousers/${id}/rubrics`, {
      method: "POST",
      headers: bearer(key),
      body: { dimensionId: "content" },
    });
    expectError(rubric, 400, { type: "invalid_request_error", code: "autouser_read_only" });
    const rubricPatch = await call(
      AutouserRubric,
      `${server.api}/autousers/${id}/rubrics/rub_power_user_overall`,
      { method: "PATCH", headers: bearer(key), body: { guidance: "Mine" } },
    );
    expectError(rubricPatch, 400, { type: "invalid_request_error", code: "autouser_read_only" });
    const still = await call(Autouser, `${server.api}/autousers/${id}`, { headers: bearer(key) });
    expect(bodyOf(still).name).toBe("Power user");
  });

  it("duplicates into the team as an editable, uncalibrated draft with copies of its rubrics", async () => {
    const res = await call(Autouser, `${server.api}/autousers/auto_accessibility_auditor/duplicate`, {
      method: "POST",
      headers: bearer(key),
      body: {},
    });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({
      teamId: owner.teamId,
      isSystem: false,
      name: "Accessibility auditor (copy)",
      status: "draft",
      visibility: "private",
      calibrationStatus: "uncalibrated",
      sourceAutouserId: "auto_accessibility_auditor",
      accessibilityNeeds: ["screen-reader", "low-vision", "color-blindness", "keyboard-only"],
    });
    const rubrics = bodyOf(
      await call(AutouserRubricList, `${server.api}/autousers/${res.body.id}/rubrics`, {
        headers: bearer(key),
      }),
    );
    expect(rubrics.data.map((r) => r.dimensionId).sort()).toEqual(["accessibility", "content", "overall"]);
    expect(rubrics.data.every((r) => r.autouserId === res.body.id && r.version === 1)).toBe(true);
    const edited = await call(Autouser, `${server.api}/autousers/${res.body.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { name: "Our auditor" },
    });
    expect(bodyOf(edited).name).toBe("Our auditor");
  });
});

describe("listing", () => {
  it("lists the team's and the system personas, pages through them and filters", async () => {
    const lister = await signUp(server, "lister");
    const k = await mintApiKey(server, lister, ["autousers:read", "autousers:write"]);
    const draft = await created({ name: "Draft one" }, bearer(k));
    const published = await created(
      { name: "Public one", status: "published", visibility: "public" },
      bearer(k),
    );

    const all = await allIds("", bearer(k));
    expect(all.sort()).toEqual([...SYSTEM_IDS, draft.id, published.id].sort());
    expect((await allIds("source=team", bearer(k))).sort()).toEqual([draft.id, published.id].sort());
    expect((await allIds("source=system", bearer(k))).sort()).toEqual([...SYSTEM_IDS].sort());
    expect(await allIds("status=draft", bearer(k))).toEqual([draft.id]);
    expect(await allIds("visibility=private", bearer(k))).toEqual([draft.id]);
    expect((await allIds("visibility=public&status=published", bearer(k))).sort()).toEqual(
      [...SYSTEM_IDS, published.id].sort(),
    );

    // Newest first: the persona changed last leads.
    const first = bodyOf(await list("source=team", bearer(k)));
    expect(first.data.map((a) => a.id)).toEqual([published.id, draft.id]);
    const back = bodyOf(await list(`source=team&ending_before=${draft.id}`, bearer(k)));
    expect(back.data.map((a) => a.id)).toEqual([published.id]);
  });

  it("refuses bad filters and foreign cursors, naming the parameter", async () => {
    expectError(await list("source=mine"), 400, { type: "invalid_request_error", param: "source" });
    expectError(await list("visibility=hidden"), 400, { type: "invalid_request_error", param: "visibility" });
    expectError(await list("status=live"), 400, { type: "invalid_request_error", param: "status" });
    expectError(await list("limit=101"), 400, { type: "invalid_request_error", param: "limit" });
    expectError(await list("starting_after=auto_nothing_here"), 400, {
      type: "invalid_request_error",
      code: "invalid_cursor",
      param: "starting_after",
    });
  });
});

describe("visibility and team isolation", () => {
  it("hides another team's autousers: 404 by id, absent from lists, refused in selectedAutousers", async () => {
    const mine = await created({ visibility: "public", status: "published" });
    const outsider = await signUp(server, "outsider");
    const outsiderKey = await mintApiKey(server, outsider, ["autousers:*", "evaluations:*"]);
    const theirs = await created({ name: "Theirs" }, bearer(outsiderKey));

    const get = await call(Autouser, `${server.api}/autousers/${mine.id}`, { headers: bearer(outsiderKey) });
    expectError(get, 404, { type: "not_found_error", code: "autouser_not_found" });
    for (const [method, path, body] of [
      ["PATCH", `/autousers/${mine.id}`, { name: "x" }],
      ["DELETE", `/autousers/${mine.id}`, undefined],
      ["POST", `/autousers/${mine.id}/duplicate`, {}],
      ["GET", `/autousers/${mine.id}/rubrics`, undefined],
      ["POST", `/autousers/${mine.id}/rubrics`, { dimensionId: "overall" }],
    ] as const) {
      const res = await call(Autouser, `${server.api}${path}`, {
        method,
        headers: bearer(outsiderKey),
        body,
      });
      expectError(res, 404, { type: "not_found_error", code: "autouser_not_found" });
    }
    expect(await allIds("", bearer(outsiderKey))).not.toContain(mine.id);

    const evaluation = await call(Evaluation, `${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(outsiderKey),
      body: {
        name: "Borrowing",
        type: "SSE",
        selectedAutousers: [
          { autouserId: theirs.id, agentCount: 2 },
          { autouserId: mine.id, agentCount: 1 },
        ],
      },
    });
    expectError(evaluation, 400, {
      type: "invalid_request_error",
      param: "selectedAutousers[1].autouserId",
    });
  });

  it("shows a private persona to its creator and the team's owners and admins, not to other members", async () => {
    const member = await signUp(server, "member");
    const { db } = server.database;
    await db.insert(teamMembers).values({ teamId: owner.teamId, userId: member.userId, role: "member" });
    const asMember = sessionHeaders(server, member);
    const asOwner = sessionHeaders(server, owner);

    const ownersPrivate = await created({ name: "Owner's private" }, asOwner);
    const ownersPublic = await created({ name: "Owner's public", visibility: "public" }, asOwner);
    const membersPrivate = await created({ name: "Member's private", teamId: owner.teamId }, asMember);

    const memberSees = await allIds(`teamId=${owner.teamId}&source=team`, asMember);
    expect(memberSees).toContain(ownersPublic.id);
    expect(memberSees).toContain(membersPrivate.id);
    expect(memberSees).not.toContain(ownersPrivate.id);
    const hidden = await call(Autouser, `${server.api}/autousers/${ownersPrivate.id}`, { headers: asMember });
    expectError(hidden, 404, { type: "not_found_error", code: "autouser_not_found" });

    const ownerSees = await allIds(`teamId=${owner.teamId}&source=team`, asOwner);
    expect(ownerSees).toEqual(expect.arrayContaining([ownersPrivate.id, ownersPublic.id, membersPrivate.id]));

    // A member cannot select what they cannot see; the owner can.
    const refused = await call(Evaluation, `${server.api}/evaluations`, {
      method: "POST",
      headers: asMember,
      body: {
        teamId: owner.teamId,
        name: "Peeking",
        type: "SSE",
        selectedAutousers: [{ autouserId: ownersPrivate.id, agentCount: 1 }],
      },
    });
    expectError(refused, 400, { type: "invalid_request_error", param: "selectedAutousers[0].autouserId" });
    const allowed = await createEvaluation(server.api, asOwner, {
      teamId: owner.teamId,
      name: "Owner picks",
      type: "SSE",
      selectedAutousers: [{ autouserId: ownersPrivate.id, agentCount: 3 }],
    });
    expect(allowed.selectedAutousers).toEqual([{ autouserId: ownersPrivate.id, agentCount: 3 }]);
  });
});

describe("selectedAutousers on evaluations", () => {
  it("accepts the team's and system autousers and validates each entry on create and PATCH", async () => {
    const ours = await created();
    const evaluation = await createEvaluation(server.api, bearer(key), {
      name: "With autousers",
      type: "SSE",
      selectedAutousers: [
        { autouserId: "auto_first_time_visitor", agentCount: 5 },
        { autouserId: ours.id, agentCount: 1 },
      ],
    });
    expect(evaluation.selectedAutousers).toHaveLength(2);

    const patch = (selectedAutousers: unknown) =>
      call(Evaluation, `${server.api}/evaluations/${evaluation.id}`, {
        method: "PATCH",
        headers: bearer(key),
        body: { selectedAutousers },
      });
    expectError(await patch([{ autouserId: "auto_missing", agentCount: 1 }]), 400, {
      type: "invalid_request_error",
      param: "selectedAutousers[0].autouserId",
    });
    expectError(
      await patch([
        { autouserId: ours.id, agentCount: 1 },
        { autouserId: ours.id, agentCount: 2 },
      ]),
      400,
      { type: "invalid_request_error", param: "selectedAutousers[1].autouserId" },
    );
    expectError(await patch([{ autouserId: ours.id, agentCount: 51 }]), 400, {
      type: "invalid_request_error",
      param: "selectedAutousers[0].agentCount",
    });
    expectError(await patch([{ autouserId: ours.id, agentCount: 0 }]), 400, {
      type: "invalid_request_error",
      param: "selectedAutousers[0].agentCount",
    });
    const kept = await patch([{ autouserId: "auto_power_user", agentCount: 50 }]);
    expectStatus(kept, 200);
    expect(kept.body.selectedAutousers).toEqual([{ autouserId: "auto_power_user", agentCount: 50 }]);

    // Refused changes left the stored selection alone.
    const dry = await call(Evaluation, `${server.api}/evaluations/${evaluation.id}`, {
      headers: bearer(key),
    });
    expect(bodyOf(dry).selectedAutousers).toEqual([{ autouserId: "auto_power_user", agentCount: 50 }]);
  });

  it("refuses to delete an autouser a Draft or Running evaluation selects, and deletes it once none does", async () => {
    const a = await created();
    const evaluation = await createEvaluation(server.api, bearer(key), {
      name: "Holds it",
      type: "SSE",
      selectedAutousers: [{ autouserId: a.id, agentCount: 1 }],
    });
    const del = () =>
      call(DeletedObject, `${server.api}/autousers/${a.id}`, { method: "DELETE", headers: bearer(key) });
    const refused = await del();
    expectError(refused, 400, { type: "invalid_request_error", code: "autouser_in_use" });
    expect(refused.body.error.details).toEqual({ evaluationIds: [evaluation.id] });

    await call(Evaluation, `${server.api}/evaluations/${evaluation.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { selectedAutousers: [] },
    });
    const done = await del();
    expectStatus(done, 200);
    expect(done.body).toEqual({ id: a.id, deleted: true });
    expectError(await call(Autouser, `${server.api}/autousers/${a.id}`, { headers: bearer(key) }), 404, {
      type: "not_found_error",
      code: "autouser_not_found",
    });
  });
});

describe("rubrics", () => {
  it("creates one rubric per template, named after it, and refuses a second or a foreign template", async () => {
    const a = await created();
    const res = await call(AutouserRubric, `${server.api}/autousers/${a.id}/rubrics`, {
      method: "POST",
      headers: bearer(key),
      body: { dimensionId: "usability", guidance: "Count the steps.", weights: { smallTapTargets: 2 } },
    });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({
      object: "autouser_rubric",
      autouserId: a.id,
      dimensionId: "usability",
      name: "Usability",
      version: 1,
      guidance: "Count the steps.",
      weights: { smallTapTargets: 2 },
      isFrozen: false,
      frozenAt: null,
      krippendorffAlpha: null,
    });
    expect(res.body.id).toMatch(/^rub_/);

    const again = await call(AutouserRubric, `${server.api}/autousers/${a.id}/rubrics`, {
      method: "POST",
      headers: bearer(key),
      body: { dimensionId: "usability" },
    });
    expectError(again, 409, {
      type: "invalid_request_error",
      code: "rubric_already_exists",
      param: "dimensionId",
    });

    const outsider = await signUp(server, "rubric-outsider");
    const outsiderKey = await mintApiKey(server, outsider, ["templates:*"]);
    const foreign = await call(Template, `${server.api}/templates`, {
      method: "POST",
      headers: bearer(outsiderKey),
      body: { teamId: outsider.teamId, name: "Theirs" },
    });
    const refused = await call(AutouserRubric, `${server.api}/autousers/${a.id}/rubrics`, {
      method: "POST",
      headers: bearer(key),
      body: { dimensionId: bodyOf(foreign).id },
    });
    expectError(refused, 400, { type: "invalid_request_error", param: "dimensionId" });
    expectError(
      await call(AutouserRubric, `${server.api}/autousers/${a.id}/rubrics`, {
        method: "POST",
        headers: bearer(key),
        body: { dimensionId: "overall", weights: { x: 11 } },
      }),
      400,
      { type: "invalid_request_error", param: "weights.x" },
    );
  });

  it("edits an unfrozen rubric in place; a frozen one answers its next version; old versions are history", async () => {
    const a = await created();
    const v1 = bodyOf(
      await call(AutouserRubric, `${server.api}/autousers/${a.id}/rubrics`, {
        method: "POST",
        headers: bearer(key),
        body: { dimensionId: "overall", guidance: "First" },
      }),
    );
    const patch = (rubricId: string, body: Record<string, unknown>) =>
      call(AutouserRubric, `${server.api}/autousers/${a.id}/rubrics/${rubricId}`, {
        method: "PATCH",
        headers: bearer(key),
        body,
      });
    const inPlace = await patch(v1.id, { guidance: "Second" });
    expectStatus(inPlace, 200);
    expect(inPlace.body).toMatchObject({ id: v1.id, version: 1, guidance: "Second" });

    // Calibration freezes a version (what POST /autousers/{id}/calibration/freeze does).
    const frozenAt = new Date("2026-11-20T10:00:00Z");
    await server.database.db
      .update(autouserRubrics)
      .set({ isFrozen: true, frozenAt, krippendorffAlpha: 0.81 })
      .where(eq(autouserRubrics.id, v1.id));

    const next = await patch(v1.id, { guidance: "Third" });
    expectStatus(next, 200);
    expect(next.body).toMatchObject({
      version: 2,
      guidance: "Third",
      isFrozen: false,
      dimensionId: "overall",
    });
    expect(next.body.id).not.toBe(v1.id);
    const frozen = await call(AutouserRubric, `${server.api}/autousers/${a.id}/rubrics/${v1.id}`, {
      headers: bearer(key),
    });
    expect(bodyOf(frozen)).toMatchObject({
      version: 1,
      guidance: "Second",
      isFrozen: true,
      frozenAt: frozenAt.toISOString(),
      krippendorffAlpha: 0.81,
    });

    const stale = await patch(v1.id, { guidance: "Fourth" });
    expectError(stale, 409, { type: "invalid_request_error", code: "rubric_superseded" });
    expect(stale.body.error.details).toEqual({ latestRubricId: next.body.id });

    const versions = bodyOf(
      await call(AutouserRubricList, `${server.api}/autousers/${a.id}/rubrics`, { headers: bearer(key) }),
    );
    expect(versions.data.map((r) => [r.id, r.version])).toEqual([
      [next.body.id, 2],
      [v1.id, 1],
    ]);

    // Runs use the frozen version until the next freeze.
    const { persona, rubrics, autouser } = await loadAgentPersona(server.database.db, a.id, owner.teamId);
    expect(autouser.id).toBe(a.id);
    expect(rubrics.map((r) => r.id)).toEqual([v1.id]);
    expect(persona).toMatchObject({ name: a.name, role: a.role, device: a.device, systemPrompt: null });

    expectError(await patch("rub_nothing", { guidance: "x" }), 404, {
      type: "not_found_error",
      code: "rubric_not_found",
    });
    const other = await created();
    expectError(
      await call(AutouserRubric, `${server.api}/autousers/${other.id}/rubrics/${v1.id}`, {
        headers: bearer(key),
      }),
      404,
      { type: "not_found_error", code: "rubric_not_found" },
    );
  });
});

describe("scopes", () => {
  it("reads with autousers:read, writes only with autousers:write", async () => {
    const readOnly = await mintApiKey(server, owner, ["autousers:read"]);
    expectStatus(await list("", bearer(readOnly)), 200);
    expectError(await create({}, bearer(readOnly)), 403, {
      type: "authorization_error",
      code: "missing_required_scope",
    });
    const noScope = await mintApiKey(server, owner, ["templates:read"]);
    expectError(await list("", bearer(noScope)), 403, {
      type: "authorization_error",
      code: "missing_required_scope",
    });
    expectError(
      await call(Autouser, `${server.api}/autousers/auto_power_user/duplicate`, {
        method: "POST",
        headers: bearer(readOnly),
        body: {},
      }),
      403,
      { type: "authorization_error", code: "missing_required_scope" },
    );
  });
});

describe("core helpers for runs", () => {
  it("assertAutousersUsable answers the rows in order and names the field it refuses", async () => {
    const a = await created();
    const { db } = server.database;
    const rows = await assertAutousersUsable(db, owner.teamId, ["auto_power_user", a.id]);
    expect(rows.map((r) => r.id)).toEqual(["auto_power_user", a.id]);
    await expect(
      assertAutousersUsable(db, "team_elsewhere", [a.id], { param: (i) => `autouserIds[${i}]` }),
    ).rejects.toMatchObject({ code: "parameter_invalid", param: "autouserIds[0]" });
    await expect(loadAgentPersona(db, a.id, "team_elsewhere")).rejects.toMatchObject({
      code: "autouser_not_found",
    });
  });
});
