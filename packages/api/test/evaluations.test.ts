import {
  Comparison,
  ComparisonList,
  DeletedObject,
  Evaluation,
  EvaluationDryRun,
  EvaluationList,
  Team,
  Template,
} from "@rubricon/contracts";
import { events, webhookDeliveries, webhookEndpoints } from "@rubricon/db";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createEvaluation, expectError, expectStatus, SSE_BODY } from "./helpers/assertions";
import {
  bearer,
  bodyOf,
  call,
  errorOf,
  mintApiKey,
  sessionHeaders,
  signUp,
  type TestUser,
} from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let user: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server, "evals");
  key = await mintApiKey(server, user, ["evaluations:*"]);
});
afterAll(() => server?.close());

const url = (path = "") => `${server.api}/evaluations${path}`;
const post = (body: unknown, headers: Record<string, string> = bearer(key)) =>
  call(Evaluation, url(), { method: "POST", headers, body });
const patch = (id: string, body: unknown) =>
  call(Evaluation, url(`/${id}`), { method: "PATCH", headers: bearer(key), body });
const get = (id: string, headers: Record<string, string> = bearer(key)) =>
  call(Evaluation, url(`/${id}`), { headers });
const eventsOf = (objectId: string) =>
  server.database.db
    .select()
    .from(events)
    .where(eq(events.objectId, objectId))
    .orderBy(asc(events.createdAt), asc(events.id));

describe("creating", () => {
  it("takes only templates of the evaluation's own team or system ones, even from a user in both teams", async () => {
    const headers = sessionHeaders(server, user);
    const second = bodyOf(
      await call(Team, `${server.api}/teams`, { method: "POST", headers, body: { name: "Other team" } }),
    );
    const foreign = bodyOf(
      await call(Template, `${server.api}/templates`, {
        method: "POST",
        headers,
        body: { teamId: second.id, name: "Other team's rubric" },
      }),
    );
    const body = { ...SSE_BODY, teamId: user.teamId, selectedDimensionIds: ["overall", foreign.id] };
    expectError(await call(z.never(), `${server.api}/evaluations`, { method: "POST", headers, body }), 400, {
      type: "invalid_request_error",
      param: "selectedDimensionIds[1]",
    });
    const mine = await createEvaluation(server.api, headers, { ...SSE_BODY, teamId: user.teamId });
    expectError(
      await call(z.never(), `${server.api}/evaluations/${mine.id}`, {
        method: "PATCH",
        headers,
        body: { selectedDimensionIds: [foreign.id] },
      }),
      400,
      { type: "invalid_request_error", param: "selectedDimensionIds[0]" },
    );
    const inOther = await createEvaluation(server.api, headers, {
      ...SSE_BODY,
      teamId: second.id,
      selectedDimensionIds: [foreign.id],
    });
    expect(inOther.templates).toEqual([{ id: foreign.id, name: "Other team's rubric", version: 1 }]);
  });

  it("creates an SSE evaluation with one comparison per design URL", async () => {
    const res = await post({
      name: "Landing page",
      type: "SSE",
      designUrls: [{ url: "https://example.com/a", label: "A" }, { url: "https://example.com/b" }],
    });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({
      object: "evaluation",
      type: "SSE",
      teamId: user.teamId,
      comparisonCount: 2,
      createdBy: user.userId,
    });
    const comparisons = await call(ComparisonList, url(`/${res.body.id}/comparisons`), {
      headers: bearer(key),
    });
    expectStatus(comparisons, 200);
    expect(comparisons.body.total_count).toBe(2);
    const stimuli = comparisons.body.data.map((c) => [
      c.name,
      "url" in c.stimulus ? c.stimulus.url : undefined,
    ]);
    expect(stimuli).toEqual(
      expect.arrayContaining([
        ["A", "https://example.com/a"],
        [null, "https://example.com/b"],
      ]),
    );
    for (const c of comparisons.body.data) expect(c.stimulus.kind).toBe("single");
  });

  it("creates an SxS evaluation with one comparison per pair", async () => {
    const res = await post({
      name: "Old vs new",
      type: "SxS",
      comparisonPairs: [
        {
          currentUrl: "https://example.com/old",
          variantUrl: "https://example.com/new",
          label: "Home",
        },
        {
          currentUrl: "https://example.com/old2",
          variantUrl: "https://example.com/new2",
        },
      ],
    });
    expectStatus(res, 201);
    expect(res.body.comparisonCount).toBe(2);
    const comparisons = await call(ComparisonList, url(`/${res.body.id}/comparisons`), {
      headers: bearer(key),
    });
    const home = bodyOf(comparisons).data.find((c) => c.name === "Home");
    expect(home!.stimulus).toEqual({
      kind: "pair",
      sideA: { url: "https://example.com/old", fileId: null },
      sideB: { url: "https://example.com/new", fileId: null },
    });
  });

  it("refuses comparisonPairs on SSE and designUrls on SxS", async () => {
    const sse = await post({
      name: "x",
      type: "SSE",
      comparisonPairs: [{ currentUrl: "https://a.example", variantUrl: "https://b.example" }],
    });
    expectError(sse, 400, {
      type: "invalid_request_error",
      param: "comparisonPairs",
    });
    const sxs = await post({
      name: "x",
      type: "SxS",
      designUrls: [{ url: "https://a.example" }],
    });
    expectError(sxs, 400, {
      type: "invalid_request_error",
      param: "designUrls",
    });
  });

  it("refuses PASSWORD_PROTECTED without a sharePassword", async () => {
    const res = await post({ ...SSE_BODY, shareAccess: "PASSWORD_PROTECTED" });
    expectError(res, 400, {
      type: "invalid_request_error",
      param: "sharePassword",
    });
    const ok = await post({
      ...SSE_BODY,
      shareAccess: "PASSWORD_PROTECTED",
      sharePassword: "s3cret-passphrase",
    });
    expect(ok.status).toBe(201);
    expect(JSON.stringify(ok.body)).not.toContain("s3cret");
  });

  it("fills the defaults", async () => {
    const res = await post({ name: "Defaults", type: "SSE" });
    expectStatus(res, 201);
    const e = res.body;
    expect(e).toMatchObject({
      status: "Draft",
      shareAccess: "TEAM_ONLY",
      selectedDimensionIds: ["overall"],
      selectedAutousers: [],
      allowMultipleRatings: false,
      evaluationMethod: "manual",
      description: null,
      comparisonCount: 0,
    });
    expect(e.id).toMatch(/^eval_/);
    expect(e.shareToken).toEqual(expect.any(String));
    expect(e.links.share).toBe(`${server.url}/share/${e.shareToken}`);
    for (const link of ["preview", "review", "edit", "results"] as const) {
      expect(e.links[link]).toBe(`${server.url}/evaluations/${e.id}/${link}`);
    }
    expect(e.createdAt).toBe(e.updatedAt);
    expect(bodyOf(await get(e.id))).toEqual(e);
  });

  it("may start Running but not Ended", async () => {
    expect(bodyOf(await post({ ...SSE_BODY, status: "Running" })).status).toBe("Running");
    expectError(await post({ ...SSE_BODY, status: "Ended" }), 400, {
      type: "invalid_request_error",
      param: "status",
    });
  });

  it("prices a dry run without persisting anything", async () => {
    const fresh = await signUp(server, "dry");
    const freshKey = await mintApiKey(server, fresh, ["evaluations:*"]);
    const res = await call(EvaluationDryRun, url(), {
      method: "POST",
      headers: bearer(freshKey),
      body: {
        name: "Dry",
        type: "SxS",
        comparisonPairs: [
          { currentUrl: "https://a.example", variantUrl: "https://b.example" },
          { currentUrl: "https://c.example", variantUrl: "https://d.example" },
        ],
        selectedAutousers: [{ autouserId: "auto_power_user", agentCount: 3 }],
        evaluationMethod: "ai",
        dryRun: true,
      },
    });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      dryRun: true,
      persisted: false,
      wouldRun: { autouserCount: 3, comparisonCount: 2, totalRuns: 6 },
      costEstimate: { currency: "usd", autouserRatings: 6 },
      warnings: [],
    });
    expect(res.body).not.toHaveProperty("id");
    const list = await call(EvaluationList, url(), { headers: bearer(freshKey) });
    expect(bodyOf(list).data).toEqual([]);
    const rows = await server.database.db.select().from(events).where(eq(events.teamId, fresh.teamId));
    expect(rows).toEqual([]);
  });

  it("validates a dry run like a real create", async () => {
    const res = await post({ name: "", type: "SSE", dryRun: true });
    expectError(res, 400, { type: "invalid_request_error", param: "name" });
  });
});

describe("status transitions", () => {
  it("moves Draft → Running → Ended → Archived, then stays final", async () => {
    const e = await createEvaluation(server.api, bearer(key));
    for (const status of ["Running", "Ended", "Archived"]) {
      const res = await patch(e.id, { status });
      expectStatus(res, 200);
      expect(res.body.status).toBe(status);
    }
    const back = await patch(e.id, { status: "Running" });
    expectError(back, 400, {
      type: "invalid_request_error",
      code: "illegal_status_transition",
      param: "status",
    });
    expectError(await patch(e.id, { name: "renamed" }), 400, {
      type: "invalid_request_error",
      code: "evaluation_not_editable",
    });
    expect(bodyOf(await get(e.id))).toMatchObject({
      status: "Archived",
      name: e.name,
    });
  });

  it("refuses Draft → Ended", async () => {
    const e = await createEvaluation(server.api, bearer(key));
    const res = await patch(e.id, { status: "Ended" });
    expectError(res, 400, {
      type: "invalid_request_error",
      code: "illegal_status_transition",
      param: "status",
    });
    expect(bodyOf(await get(e.id)).status).toBe("Draft");
  });

  it("archives a Draft directly", async () => {
    const e = await createEvaluation(server.api, bearer(key));
    expect(bodyOf(await patch(e.id, { status: "Archived" })).status).toBe("Archived");
  });

  it("keeps an Ended evaluation read-only except for archiving", async () => {
    const e = await createEvaluation(server.api, bearer(key), {
      ...SSE_BODY,
      status: "Running",
    });
    expect((await patch(e.id, { status: "Ended" })).status).toBe(200);
    expectError(await patch(e.id, { name: "renamed" }), 400, {
      type: "invalid_request_error",
      code: "evaluation_not_editable",
    });
    expectError(await patch(e.id, { shareAccess: "ANYONE_WITH_LINK" }), 400, {
      type: "invalid_request_error",
      code: "evaluation_not_editable",
    });
    expect(bodyOf(await get(e.id))).toMatchObject({
      name: e.name,
      shareAccess: "TEAM_ONLY",
      status: "Ended",
    });
    expect(bodyOf(await patch(e.id, { status: "Archived" })).status).toBe("Archived");
  });

  it("edits fields while Draft and Running and bumps updatedAt", async () => {
    const e = await createEvaluation(server.api, bearer(key));
    const res = await patch(e.id, {
      name: "Renamed",
      description: "Now with text",
    });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      name: "Renamed",
      description: "Now with text",
      status: "Draft",
    });
    expect(new Date(res.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(e.updatedAt).getTime());
    expectError(await patch(e.id, { shareAccess: "PASSWORD_PROTECTED" }), 400, {
      type: "invalid_request_error",
      param: "sharePassword",
    });
    expectError(await patch(e.id, { type: "SxS" }), 400, {
      type: "invalid_request_error",
      code: "parameter_unknown",
      param: "type",
    });
  });
});

describe("events", () => {
  it("records evaluation.created and evaluation.status_changed with the causing request", async () => {
    const created = await call(Evaluation, url(), {
      method: "POST",
      headers: { ...bearer(key), "Idempotency-Key": "create-with-events" },
      body: SSE_BODY,
    });
    expectStatus(created, 201);
    const id = created.body.id;
    const started = await call(Evaluation, url(`/${id}`), {
      method: "PATCH",
      headers: { ...bearer(key), "Idempotency-Key": "start-it" },
      body: { status: "Running" },
    });
    expect(started.status).toBe(200);
    await patch(id, { name: "No status change" });

    const rows = await eventsOf(id);
    expect(rows.map((r) => r.type)).toEqual(["evaluation.created", "evaluation.status_changed"]);
    const [createdEvent, changedEvent] = rows;
    expect(createdEvent).toMatchObject({
      teamId: user.teamId,
      requestId: created.headers.get("x-request-id"),
      idempotencyKey: "create-with-events",
    });
    expect(createdEvent!.apiVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(createdEvent!.object).toMatchObject({
      id,
      status: "Draft",
      name: SSE_BODY.name,
    });
    expect(Object.keys(createdEvent!.object.links as object).sort()).toEqual([
      "preview",
      "results",
      "review",
    ]);

    expect(changedEvent).toMatchObject({
      requestId: started.headers.get("x-request-id"),
      idempotencyKey: "start-it",
    });
    expect(changedEvent!.object).toMatchObject({
      id,
      status: "Running",
      previous_status: "Draft",
    });
  });

  it("writes the created event as the API shows the evaluation, and one delivery per subscribed endpoint", async () => {
    const other = await signUp(server, "evals-hooks");
    const otherKey = await mintApiKey(server, other, ["evaluations:*"]);
    const endpoint = (n: number, enabledEvents: string[], status: "enabled" | "disabled" = "enabled") => ({
      id: `whe_created_${n}_${other.teamId}`,
      teamId: other.teamId,
      url: `https://example.com/hook/${n}`,
      enabledEvents,
      status,
      secretHash: "x",
      secretSealed: "x",
    });
    // More subscribed endpoints than a create draws delivery ids for at first, and some that must not deliver.
    await server.database.db
      .insert(webhookEndpoints)
      .values([
        endpoint(1, ["*"]),
        endpoint(2, ["evaluation.created"]),
        endpoint(3, ["*"]),
        endpoint(4, ["evaluation.created", "rating.created"]),
        endpoint(5, ["rating.created"]),
        endpoint(6, ["*"], "disabled"),
      ]);
    const res = await fetch(url(), {
      method: "POST",
      headers: { ...bearer(otherKey), "Content-Type": "application/json" },
      body: JSON.stringify({ ...SSE_BODY, selectedDimensionIds: ["overall", "overall"] }),
    });
    const text = await res.text();
    expect(res.status, text).toBe(201);
    const shown = Evaluation.parse(JSON.parse(text));
    expect(shown.templates.map((t) => t.id)).toEqual(["overall", "overall"]);
    const [event] = await eventsOf(shown.id);
    const { preview, review, results } = shown.links;
    const object = { ...shown, links: { preview, review, results } };
    expect(event!.payload).toBe(
      JSON.stringify({
        id: event!.id,
        object: "event",
        type: "evaluation.created",
        api_version: event!.apiVersion,
        created: Math.floor(event!.createdAt.getTime() / 1000),
        team_id: other.teamId,
        data: { object },
        request: { id: res.headers.get("x-request-id"), idempotency_key: null },
      }),
    );
    expect(event!.object).toEqual(object);
    const deliveries = await server.database.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.eventId, event!.id));
    expect(deliveries.map((d) => d.endpointId).sort()).toEqual(
      [1, 2, 3, 4].map((n) => `whe_created_${n}_${other.teamId}`),
    );
    for (const d of deliveries) {
      expect(d.id).toMatch(/^whd_[a-z][a-z0-9]{23}$/);
      expect(d).toMatchObject({ teamId: other.teamId, eventType: "evaluation.created", status: "pending" });
      expect(d.nextAttemptAt).toEqual(event!.createdAt);
    }
    expect(new Set(deliveries.map((d) => d.id)).size).toBe(4);
  });

  it("records no event for a refused transition", async () => {
    const e = await createEvaluation(server.api, bearer(key));
    await patch(e.id, { status: "Ended" });
    expect((await eventsOf(e.id)).map((r) => r.type)).toEqual(["evaluation.created"]);
  });
});

describe("comparisons", () => {
  it("can be added, edited and deleted while Draft only", async () => {
    const e = await createEvaluation(server.api, bearer(key));
    const base = url(`/${e.id}/comparisons`);
    const added = await call(Comparison, base, {
      method: "POST",
      headers: bearer(key),
      body: { name: "Second", url: "https://example.com/2" },
    });
    expectStatus(added, 201);
    expect(added.body).toMatchObject({
      object: "comparison",
      evaluationId: e.id,
      name: "Second",
      position: 1,
    });
    expect(bodyOf(await get(e.id)).comparisonCount).toBe(2);

    const wrongShape = await call(Comparison, base, {
      method: "POST",
      headers: bearer(key),
      body: { currentUrl: "https://a.example" },
    });
    expectError(wrongShape, 400, {
      type: "invalid_request_error",
      param: "url",
    });

    const edited = await call(Comparison, `${base}/${added.body.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { name: "Renamed" },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      name: "Renamed",
      stimulus: { kind: "single", url: "https://example.com/2" },
    });

    const deleted = await call(DeletedObject, `${base}/${added.body.id}`, {
      method: "DELETE",
      headers: bearer(key),
    });
    expect(deleted.body).toEqual({ id: added.body.id, deleted: true });
    expectError(await call(Comparison, `${base}/${added.body.id}`, { headers: bearer(key) }), 404, {
      type: "not_found_error",
      code: "comparison_not_found",
    });

    expect((await patch(e.id, { status: "Running" })).status).toBe(200);
    const [first] = bodyOf(await call(ComparisonList, base, { headers: bearer(key) })).data;
    const locked = {
      type: "invalid_request_error",
      code: "evaluation_not_editable",
    };
    expectError(
      await call(Comparison, base, {
        method: "POST",
        headers: bearer(key),
        body: { url: "https://example.com/3" },
      }),
      400,
      locked,
    );
    expectError(
      await call(Comparison, `${base}/${first!.id}`, {
        method: "PATCH",
        headers: bearer(key),
        body: { name: "x" },
      }),
      400,
      locked,
    );
    expectError(
      await call(DeletedObject, `${base}/${first!.id}`, {
        method: "DELETE",
        headers: bearer(key),
      }),
      400,
      locked,
    );
    expect(bodyOf(await get(e.id)).comparisonCount).toBe(1);
  });

  it("does not reach a comparison through another evaluation", async () => {
    const a = await createEvaluation(server.api, bearer(key));
    const b = await createEvaluation(server.api, bearer(key));
    const [cmp] = bodyOf(
      await call(ComparisonList, url(`/${a.id}/comparisons`), { headers: bearer(key) }),
    ).data;
    const res = await call(DeletedObject, url(`/${b.id}/comparisons/${cmp!.id}`), {
      method: "DELETE",
      headers: bearer(key),
    });
    expectError(res, 404, {
      type: "not_found_error",
      code: "comparison_not_found",
    });
    expect(bodyOf(await get(a.id)).comparisonCount).toBe(1);
  });
});

describe("deleting", () => {
  it("answers {id, deleted: true} and then 404", async () => {
    const e = await createEvaluation(server.api, bearer(key));
    const res = await call(DeletedObject, url(`/${e.id}`), {
      method: "DELETE",
      headers: bearer(key),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: e.id, deleted: true });
    expectError(await get(e.id), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
    expectError(await call(ComparisonList, url(`/${e.id}/comparisons`), { headers: bearer(key) }), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
    expectError(await call(DeletedObject, url(`/${e.id}`), { method: "DELETE", headers: bearer(key) }), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
  });
});

describe("access from another team", () => {
  let stranger: TestUser;
  beforeAll(async () => {
    stranger = await signUp(server, "stranger");
  });

  it("answers a signed-in stranger 403 evaluation_no_access on a running link-shared evaluation", async () => {
    const e = await createEvaluation(server.api, bearer(key), {
      ...SSE_BODY,
      status: "Running",
      shareAccess: "ANYONE_WITH_LINK",
    });
    const res = await get(e.id, sessionHeaders(server, stranger));
    expectError(res, 403, {
      type: "authorization_error",
      code: "evaluation_no_access",
    });
    const team = await call(Team, `${server.api}/teams/${user.teamId}`, {
      headers: sessionHeaders(server, user),
    });
    expect(res.body.error.details).toEqual({
      teamName: bodyOf(team).name,
      callerEmail: stranger.email,
    });
  });

  it("answers 404 for a TEAM_ONLY one, exactly as for a missing one", async () => {
    const e = await createEvaluation(server.api, bearer(key), {
      ...SSE_BODY,
      status: "Running",
    });
    const res = await get(e.id, sessionHeaders(server, stranger));
    expectError(res, 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
    const missing = await get("eval_doesnotexist", sessionHeaders(server, stranger));
    expect(errorOf(missing).message.replace("eval_doesnotexist", e.id)).toBe(res.body.error.message);
  });

  it("answers 404 for a link-shared Draft and to a stranger's API key", async () => {
    const draft = await createEvaluation(server.api, bearer(key), {
      ...SSE_BODY,
      shareAccess: "ANYONE_WITH_LINK",
    });
    expectError(await get(draft.id, sessionHeaders(server, stranger)), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
    const running = await createEvaluation(server.api, bearer(key), {
      ...SSE_BODY,
      status: "Running",
      shareAccess: "ANYONE_WITH_LINK",
    });
    const strangerKey = await mintApiKey(server, stranger, ["*"]);
    expectError(await get(running.id, bearer(strangerKey)), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
  });

  it("never lets a stranger change or delete it", async () => {
    const e = await createEvaluation(server.api, bearer(key), {
      ...SSE_BODY,
      status: "Running",
      shareAccess: "ANYONE_WITH_LINK",
    });
    const headers = sessionHeaders(server, stranger);
    const changed = await call(Evaluation, url(`/${e.id}`), {
      method: "PATCH",
      headers,
      body: { name: "hijacked" },
    });
    expect([403, 404]).toContain(changed.status);
    const deleted = await call(DeletedObject, url(`/${e.id}`), { method: "DELETE", headers });
    expect([403, 404]).toContain(deleted.status);
    expect(bodyOf(await get(e.id)).name).toBe(SSE_BODY.name);
  });
});
