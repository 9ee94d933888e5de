import { ComparisonList, EvaluationDraftEdit } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createEvaluation, expectError, expectStatus } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let user: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server, "draft-edit");
  key = await mintApiKey(server, user, ["evaluations:*"]);
}, 240_000);
afterAll(() => server?.close());

const draftOf = (id: string, body: unknown, headers = bearer(key)) =>
  call(EvaluationDraftEdit, `${server.api}/evaluations/${id}/draft`, { method: "PATCH", headers, body });

const THREE = {
  name: "Landing",
  type: "SSE",
  designUrls: [
    { url: "https://example.com/one", label: "One" },
    { url: "https://example.com/two", label: "Two" },
    { url: "https://example.com/three", label: "Three" },
  ],
};

describe("PATCH /evaluations/{id}/draft", () => {
  it("changes fields, keeps, edits, adds, removes and reorders comparisons in one call", async () => {
    const evaluation = await createEvaluation(server.api, bearer(key), THREE);
    const before = bodyOf(
      await call(ComparisonList, `${server.api}/evaluations/${evaluation.id}/comparisons`, {
        headers: bearer(key),
      }),
    ).data.sort((a, b) => a.position - b.position);
    const [one, two, three] = before;
    const res = await draftOf(evaluation.id, {
      name: "Landing, second pass",
      instructions: "Rate the first screen.",
      comparisons: [
        { id: three!.id },
        { id: one!.id, name: "One, renamed", url: "https://example.com/one-b" },
        { url: "https://example.com/four", name: "Four" },
      ],
    });
    expectStatus(res, 200);
    const edit = res.body;
    expect(edit.evaluation).toMatchObject({
      name: "Landing, second pass",
      instructions: "Rate the first screen.",
      comparisonCount: 3,
      status: "Draft",
    });
    expect(edit.comparisons.map((c) => [c.position, c.name])).toEqual([
      [0, "Three"],
      [1, "One, renamed"],
      [2, "Four"],
    ]);
    expect(edit.comparisons[0]!.id).toBe(three!.id);
    expect(edit.comparisons[1]!.id).toBe(one!.id);
    expect(edit.comparisons[1]!.stimulus).toMatchObject({ kind: "single", url: "https://example.com/one-b" });
    const after = bodyOf(
      await call(ComparisonList, `${server.api}/evaluations/${evaluation.id}/comparisons`, {
        headers: bearer(key),
      }),
    );
    expect(after.data.map((c) => c.id)).not.toContain(two!.id);
    expect(after.total_count).toBe(3);
  });

  it("leaves comparisons alone when `comparisons` is omitted", async () => {
    const evaluation = await createEvaluation(server.api, bearer(key), THREE);
    const res = await draftOf(evaluation.id, { description: "Only the description" });
    expectStatus(res, 200);
    expect(res.body.evaluation.description).toBe("Only the description");
    expect(res.body.comparisons).toHaveLength(3);
  });

  it("saves nothing when one item is refused, and names the item", async () => {
    const evaluation = await createEvaluation(server.api, bearer(key), THREE);
    const bad = await draftOf(evaluation.id, {
      name: "Should not be saved",
      comparisons: [{ url: "https://example.com/new" }, { name: "no stimulus" }],
    });
    expectError(bad, 400, {
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "comparisons[1].url",
    });
    const unknown = await draftOf(evaluation.id, { comparisons: [{ id: "comparison_nope" }] });
    expectError(unknown, 400, { type: "invalid_request_error", param: "comparisons[0].id" });
    const list = bodyOf(
      await call(ComparisonList, `${server.api}/evaluations/${evaluation.id}/comparisons`, {
        headers: bearer(key),
      }),
    );
    const twice = await draftOf(evaluation.id, {
      comparisons: [{ id: list.data[0]!.id }, { id: list.data[0]!.id }],
    });
    expectError(twice, 400, { type: "invalid_request_error", param: "comparisons[1].id" });
    const unchanged = await draftOf(evaluation.id, {});
    expectStatus(unchanged, 200);
    expect(unchanged.body.evaluation.name).toBe("Landing");
    expect(unchanged.body.comparisons).toHaveLength(3);
  });

  it("refuses an evaluation that is not a Draft with 409 evaluation_not_draft", async () => {
    const running = await createEvaluation(server.api, bearer(key), { ...THREE, status: "Running" });
    const res = await draftOf(running.id, { name: "Too late" });
    expectError(res, 409, { type: "invalid_request_error", code: "evaluation_not_draft" });
  });

  it("refuses unknown fields, a status change and another team's evaluation", async () => {
    const evaluation = await createEvaluation(server.api, bearer(key), THREE);
    expectError(await draftOf(evaluation.id, { status: "Running" }), 400, {
      type: "invalid_request_error",
      code: "parameter_unknown",
    });
    expectError(await draftOf(evaluation.id, { comparisons: [{ url: "ftp://example.com" }] }), 400, {
      type: "invalid_request_error",
      param: "comparisons[0].url",
    });
    const other = await signUp(server, "draft-edit-other");
    const otherKey = await mintApiKey(server, other, ["evaluations:*"]);
    expectError(await draftOf(evaluation.id, { name: "Not mine" }, bearer(otherKey)), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
    const readOnly = await mintApiKey(server, user, ["evaluations:read"]);
    expectError(
      await call(z.unknown(), `${server.api}/evaluations/${evaluation.id}/draft`, {
        method: "PATCH",
        headers: bearer(readOnly),
        body: { name: "x" },
      }),
      403,
      { type: "authorization_error", code: "missing_required_scope" },
    );
  });
});
