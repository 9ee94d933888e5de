import { DeletedObject, Evaluation, Template, TemplateList, TemplateVersionList } from "@rubricon/contracts";
import { fixedClock } from "@rubricon/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectStatus } from "./helpers/assertions";
import { bearer, bodyOf, call, callRaw, errorOf, mintApiKey, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

const clock = fixedClock(new Date("2026-11-22T12:00:00Z"));
let server: TestServer;
let user: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ clock });
  user = await signUp(server, "templates");
  key = await mintApiKey(server, user, ["templates:*", "evaluations:*"]);
});
afterAll(() => server?.close());

const create = (body: Record<string, unknown>, prefix = "templates") =>
  call(Template, `${server.api}/${prefix}`, {
    method: "POST",
    headers: bearer(key),
    body: { teamId: user.teamId, name: "Clarity", ...body },
  });

describe("template body", () => {
  it("applies every default of the spec's Template body", async () => {
    const res = await create({});
    expectStatus(res, 201);
    expect(res.body).toMatchObject({
      object: "template",
      teamId: user.teamId,
      isSystem: false,
      version: 1,
      name: "Clarity",
      description: null,
      type: "TEXT_SXS",
      scaleType: "SEVEN_POINT",
      scaleMin: 1,
      scaleMax: 7,
      icon: "star",
      scoringMode: "holistic",
      sxsScoringMode: "holistic",
      isPrimary: false,
      openTextEnabled: false,
      guidelines: "",
      contexts: [],
      customQuestions: [],
    });
    expect(res.body.id).toMatch(/^tpl_/);
  });

  it("sizes the default scale by scaleType", async () => {
    expect(bodyOf(await create({ scaleType: "THREE_POINT" }))).toMatchObject({
      scaleMin: 1,
      scaleMax: 3,
    });
    expect(bodyOf(await create({ scaleType: "FIVE_POINT" }))).toMatchObject({
      scaleMin: 1,
      scaleMax: 5,
    });
  });

  const tooLong: [string, unknown][] = [
    ["name", ""],
    ["name", "x".repeat(201)],
    ["description", "x".repeat(2001)],
    ["guidelines", "x".repeat(50001)],
    ["icon", ""],
    ["icon", "x".repeat(101)],
    ["scaleQuestion", "x".repeat(501)],
    ["sseQuestion", "x".repeat(501)],
    ["sourceBuiltInId", "x".repeat(201)],
    ["type", "TEXT"],
    ["scaleType", "TEN_POINT"],
    ["scoringMode", "mixed"],
    ["sxsScoringMode", "mixed"],
    ["isPrimary", "yes"],
    ["openTextEnabled", 1],
    ["scaleMin", 1.5],
  ];
  it.each(tooLong)("rejects an out-of-range %s naming it in param", async (field, value) => {
    const res = await create({ [field]: value });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({
      type: "invalid_request_error",
      param: field,
    });
  });

  const nested: [string, Record<string, unknown>, string][] = [
    ["sseScaleLabels", { sseScaleLabels: ["x".repeat(501)] }, "sseScaleLabels[0]"],
    ["sxsScaleLabels", { sxsScaleLabels: ["ok", "x".repeat(501)] }, "sxsScaleLabels[1]"],
    ["sseScaleDescriptions", { sseScaleDescriptions: ["x".repeat(2001)] }, "sseScaleDescriptions[0]"],
    ["sxsScaleDescriptions", { sxsScaleDescriptions: ["x".repeat(2001)] }, "sxsScaleDescriptions[0]"],
    ["sseAnchorLabels", { sseAnchorLabels: ["x".repeat(501)] }, "sseAnchorLabels[0]"],
    ["sxsAnchorLabels", { sxsAnchorLabels: ["x".repeat(501)] }, "sxsAnchorLabels[0]"],
    ["sseAnchorDescriptions", { sseAnchorDescriptions: ["x".repeat(2001)] }, "sseAnchorDescriptions[0]"],
    ["sxsAnchorDescriptions", { sxsAnchorDescriptions: ["x".repeat(2001)] }, "sxsAnchorDescriptions[0]"],
    ["contexts", { contexts: ["mobile"] }, "contexts[0]"],
    ["criteria", { criteria: [{ id: "a", label: "A" }] }, "criteria[0].description"],
    [
      "sseAnchors",
      {
        sseAnchors: [{ id: "a", label: "A", description: "d", weight: "heavy" }],
      },
      "sseAnchors[0].weight",
    ],
    ["customQuestions", { customQuestions: [{ id: "q", text: "Why?" }] }, "customQuestions[0].category"],
  ];
  it.each(nested)("validates each entry of %s", async (_field, body, param) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(errorOf(res).param).toBe(param);
  });

  it("accepts nullable label arrays and structured entries", async () => {
    const res = await create({
      sseScaleLabels: null,
      criteria: [{ id: "c1", label: "Clear", description: "Easy to read" }],
      sxsAnchors: [{ id: "a1", label: "Better", description: "B wins", weight: 0.5 }],
      customQuestions: [{ id: "q1", text: "What confused you?", category: "comprehension" }],
      contexts: ["ui-ux", "llm-ai"],
    });
    expectStatus(res, 201);
    expect(res.body.criteria).toHaveLength(1);
  });

  it("requires teamId and rejects unknown fields", async () => {
    const missing = await call(Template, `${server.api}/templates`, {
      method: "POST",
      headers: bearer(key),
      body: { name: "x" },
    });
    expect(missing.status).toBe(400);
    expect(errorOf(missing).param).toBe("teamId");
    const unknown = await create({ colour: "red" });
    expect(errorOf(unknown)).toMatchObject({
      code: "parameter_unknown",
      param: "colour",
    });
  });

  it("checks that the scale is ordered, sized by its type, and that labels fit it", async () => {
    expect(errorOf(await create({ scaleMin: 5, scaleMax: 3 })).param).toBe("scaleMax");
    expect(errorOf(await create({ scaleType: "FIVE_POINT", scaleMin: 1, scaleMax: 7 })).param).toBe(
      "scaleMax",
    );
    expect(errorOf(await create({ scaleLabels: { "9": "Off the scale" } })).param).toBe("scaleLabels.9");
    expect(
      errorOf(
        await create({
          scaleType: "THREE_POINT",
          sseScaleLabels: ["a", "b", "c", "d"],
        }),
      ).param,
    ).toBe("sseScaleLabels");
    expect(
      (
        await create({
          scaleMin: 0,
          scaleMax: 6,
          scaleLabels: { "0": "None", "6": "All" },
        })
      ).status,
    ).toBe(201);
  });
});

describe("versions", () => {
  it("bumps the version on PATCH, names changed fields, duplicates and reverts", async () => {
    const t = bodyOf(await create({ guidelines: "v1" }));
    clock.advance(1000);
    const patched = await call(Template, `${server.api}/templates/${t.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { name: "Clarity 2", guidelines: "v2" },
    });
    expectStatus(patched, 200);
    expect(patched.body.version).toBe(2);
    clock.advance(1000);
    const same = await call(Template, `${server.api}/templates/${t.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { guidelines: "v2" },
    });
    expect(bodyOf(same).version).toBe(2);

    const versions = await call(TemplateVersionList, `${server.api}/templates/${t.id}/versions`, {
      headers: bearer(key),
    });
    expect(bodyOf(versions).data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(bodyOf(versions).data[0]).toMatchObject({
      changeType: "updated",
      dimensionId: t.id,
    });
    expect(bodyOf(versions).data[0]!.changeSummary).toContain("name");
    expect(bodyOf(versions).data[0]!.changeSummary).toContain("guidelines");
    expect(bodyOf(versions).data[1]!.changeType).toBe("created");

    clock.advance(1000);
    const reverted = await call(Template, `${server.api}/templates/${t.id}/revert`, {
      method: "POST",
      headers: bearer(key),
      body: { versionId: bodyOf(versions).data[1]!.id },
    });
    expect(reverted.body).toMatchObject({
      version: 3,
      name: "Clarity",
      guidelines: "v1",
    });

    const copy = await call(Template, `${server.api}/templates/${t.id}/duplicate`, {
      method: "POST",
      headers: bearer(key),
      body: {},
    });
    expectStatus(copy, 201);
    expect(copy.body).toMatchObject({
      version: 1,
      name: "Clarity (copy)",
      guidelines: "v1",
    });
    const copyVersions = await call(TemplateVersionList, `${server.api}/templates/${copy.body.id}/versions`, {
      headers: bearer(key),
    });
    expect(bodyOf(copyVersions).data[0]!.changeType).toBe("duplicated");

    const badRevert = await call(Template, `${server.api}/templates/${t.id}/revert`, {
      method: "POST",
      headers: bearer(key),
      body: { versionId: bodyOf(copyVersions).data[0]!.id },
    });
    expect(badRevert.status).toBe(404);
    expect(errorOf(badRevert).param).toBe("versionId");
  });
});

describe("system templates", () => {
  const SYSTEM = [
    "overall",
    "usability",
    "visual-design",
    "accessibility",
    "content",
    "helpfulness",
    "accuracy",
    "safety",
    "design-system",
  ];

  it("lists the system templates beside the team's, read-only", async () => {
    const ids: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = bodyOf(
        await call(
          TemplateList,
          `${server.api}/templates?limit=100${after ? `&starting_after=${after}` : ""}`,
          {
            headers: bearer(key),
          },
        ),
      );
      ids.push(...page.data.map((t: { id: string }) => t.id));
      if (!page.has_more) break;
      after = page.next_cursor;
    }
    for (const id of SYSTEM) expect(ids).toContain(id);
    const overall = await call(Template, `${server.api}/templates/overall`, {
      headers: bearer(key),
    });
    expect(bodyOf(overall)).toMatchObject({
      isSystem: true,
      teamId: null,
      scaleMin: 1,
      scaleMax: 7,
    });
    expect(bodyOf(overall).guidelines.length).toBeGreaterThan(20);
    const edit = await call(Template, `${server.api}/templates/overall`, {
      method: "PATCH",
      headers: bearer(key),
      body: { name: "Mine" },
    });
    expect(edit.status).toBe(400);
    expect(errorOf(edit).code).toBe("template_read_only");
    const del = await call(DeletedObject, `${server.api}/templates/overall`, {
      method: "DELETE",
      headers: bearer(key),
    });
    expect(errorOf(del).code).toBe("template_read_only");
  });

  it("is visible to every team but a team template is not", async () => {
    const other = await signUp(server, "other");
    const otherKey = await mintApiKey(server, other, ["templates:read"]);
    const mine = bodyOf(await create({}));
    expect(
      (
        await call(Template, `${server.api}/templates/accessibility`, {
          headers: bearer(otherKey),
        })
      ).status,
    ).toBe(200);
    const hidden = await call(Template, `${server.api}/templates/${mine.id}`, {
      headers: bearer(otherKey),
    });
    expect(hidden.status).toBe(404);
    expect(errorOf(hidden).code).toBe("template_not_found");
  });
});

describe("templates in evaluations", () => {
  it("defaults to overall, shows versions, rejects unknown ids, and protects attached templates", async () => {
    const t = bodyOf(await create({}));
    const plain = await call(Evaluation, `${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: { name: "E", type: "SSE" },
    });
    expect(bodyOf(plain).selectedDimensionIds).toEqual(["overall"]);
    expect(bodyOf(plain).templates).toEqual([{ id: "overall", name: "Overall quality", version: 1 }]);

    const bad = await call(Evaluation, `${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: {
        name: "E",
        type: "SSE",
        selectedDimensionIds: ["overall", "nope"],
      },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).param).toBe("selectedDimensionIds[1]");

    const evaluation = await call(Evaluation, `${server.api}/evaluations/${bodyOf(plain).id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { selectedDimensionIds: ["usability", t.id] },
    });
    expect(bodyOf(evaluation).templates.map((x: { id: string }) => x.id)).toEqual(["usability", t.id]);

    const refused = await call(DeletedObject, `${server.api}/templates/${t.id}`, {
      method: "DELETE",
      headers: bearer(key),
    });
    expect(refused.status).toBe(400);
    expect(errorOf(refused).code).toBe("template_in_use");
    expect(errorOf(refused).message).toContain(bodyOf(plain).id);

    const unused = bodyOf(await create({}));
    const deleted = await call(DeletedObject, `${server.api}/templates/${unused.id}`, {
      method: "DELETE",
      headers: bearer(key),
    });
    expect(deleted.body).toEqual({ id: unused.id, deleted: true });
  });
});

describe("/dimensions deprecated alias", () => {
  it("answers like /templates with Deprecation, Sunset and Link headers before the sunset", async () => {
    const created = await create({}, "dimensions");
    expectStatus(created, 201);
    expect(created.headers.get("deprecation")).toBe("true");
    expect(created.headers.get("sunset")).toBe("Sun, 04 Apr 2027 00:00:00 GMT");
    expect(created.headers.get("link")).toBe(`<${server.api}/templates>; rel="successor-version"`);
    const got = await call(Template, `${server.api}/dimensions/${created.body.id}`, {
      headers: bearer(key),
    });
    expect(bodyOf(got).id).toBe(created.body.id);
    expect(got.headers.get("link")).toBe(
      `<${server.api}/templates/${created.body.id}>; rel="successor-version"`,
    );
    const canonical = await call(Template, `${server.api}/templates/${created.body.id}`, {
      headers: bearer(key),
    });
    expect(canonical.headers.get("deprecation")).toBeNull();
    expect(canonical.body).toEqual(bodyOf(got));
  });

  it("answers 410 route_sunset from the sunset date on, while /templates goes on", async () => {
    clock.set(new Date("2027-04-03T23:59:59Z"));
    expect((await call(TemplateList, `${server.api}/dimensions`, { headers: bearer(key) })).status).toBe(200);
    clock.set(new Date("2027-04-04T00:00:00Z"));
    const gone = await call(TemplateList, `${server.api}/dimensions`, {
      headers: bearer(key),
    });
    expect(gone.status).toBe(410);
    expect(errorOf(gone)).toMatchObject({
      type: "invalid_request_error",
      code: "route_sunset",
    });
    expect(gone.headers.get("link")).toContain("/templates");
    expect((await call(TemplateList, `${server.api}/templates`, { headers: bearer(key) })).status).toBe(200);
    clock.set(new Date("2026-11-22T12:00:00Z"));
  });

  it("documents both families, the alias as deprecated", async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is asserted field by field
    const doc = (await callRaw(`${server.api}/openapi.json`)).body as any;
    expect(doc.paths["/templates/{id}/revert"].post.deprecated).toBeUndefined();
    expect(doc.paths["/dimensions/{id}/revert"].post.deprecated).toBe(true);
    expect(doc.paths["/dimensions"].get.deprecated).toBe(true);
  });
});

describe("scopes", () => {
  it("needs templates:write to create and templates:read to list", async () => {
    const reader = await mintApiKey(server, user, ["templates:read"]);
    const denied = await call(Template, `${server.api}/templates`, {
      method: "POST",
      headers: bearer(reader),
      body: { teamId: user.teamId, name: "x" },
    });
    expect(denied.status).toBe(403);
    expect(errorOf(denied).message).toContain("templates:write");
    const evalOnly = await mintApiKey(server, user, ["evaluations:*"]);
    const noRead = await call(TemplateList, `${server.api}/dimensions`, {
      headers: bearer(evalOnly),
    });
    expect(errorOf(noRead).message).toContain("templates:read");
  });
});
