import {
  Evaluation,
  EvaluationList,
  FIRST_API_VERSION,
  LATEST_API_VERSION,
  WhoAmI,
} from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createEvaluation, expectError, UUID_V7 } from "./helpers/assertions";
import { bearer, call, mintApiKey, signUp } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  const user = await signUp(server, "pipeline");
  key = await mintApiKey(server, user, ["*"]);
});
afterAll(() => server?.close());

const post = (path: string, body: unknown, headers: Record<string, string> = bearer(key)) =>
  call(Evaluation, `${server.api}${path}`, { method: "POST", headers, body });

describe("request id", () => {
  it("is a uuid v7 on success and on every kind of error, equal to error.request_id", async () => {
    const ok = await call(WhoAmI, `${server.api}/auth/whoami`, {
      headers: bearer(key),
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-request-id")).toMatch(UUID_V7);

    const notFound = await call(z.never(), `${server.api}/nope`, { headers: bearer(key) });
    expectError(notFound, 404, {
      type: "not_found_error",
      code: "route_not_found",
    });

    const wrongMethod = await call(WhoAmI, `${server.api}/auth/whoami`, {
      method: "DELETE",
      headers: bearer(key),
    });
    expectError(wrongMethod, 405, {
      type: "invalid_request_error",
      code: "method_not_allowed",
    });

    const unauthenticated = await call(EvaluationList, `${server.api}/evaluations`);
    expectError(unauthenticated, 401, {
      type: "authentication_error",
      code: "authentication_required",
    });

    const invalid = await post("/evaluations", "{oops");
    expectError(invalid, 400, {
      type: "invalid_request_error",
      code: "invalid_json",
    });
  });

  it("differs between requests", async () => {
    const a = await call(WhoAmI, `${server.api}/auth/whoami`, { headers: bearer(key) });
    const b = await call(WhoAmI, `${server.api}/auth/whoami`, { headers: bearer(key) });
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));
  });
});

describe("routing", () => {
  it("answers an unknown route with 404 route_not_found", async () => {
    const res = await call(z.never(), `${server.api}/evaluations/abc/nothing-here`, {
      headers: bearer(key),
    });
    expectError(res, 404, { type: "not_found_error", code: "route_not_found" });
  });

  it("answers a wrong method with 405 and an Allow header listing the route's methods", async () => {
    const res = await call(z.never(), `${server.api}/evaluations`, {
      method: "PUT",
      headers: bearer(key),
      body: {},
    });
    expectError(res, 405, {
      type: "invalid_request_error",
      code: "method_not_allowed",
    });
    const allow = res.headers.get("allow")?.split(/,\s*/) ?? [];
    expect(allow).toEqual(expect.arrayContaining(["GET", "POST"]));
    expect(allow).not.toContain("PUT");
  });

  it("answers in the Service-Version a request names, and refuses one it does not know", async () => {
    const res = await call(EvaluationList, `${server.api}/evaluations`, {
      headers: { ...bearer(key), "Service-Version": FIRST_API_VERSION },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("service-version")).toBe(FIRST_API_VERSION);
    const unknown = await call(z.never(), `${server.api}/evaluations`, {
      headers: { ...bearer(key), "Service-Version": "2024-01-01" },
    });
    expectError(unknown, 400, {
      type: "invalid_request_error",
      code: "api_version_unknown",
      param: "Service-Version",
    });
    expect(unknown.headers.get("service-version")).toBe(LATEST_API_VERSION);
  });
});

describe("request bodies", () => {
  it("rejects malformed JSON with invalid_json", async () => {
    expectError(await post("/evaluations", '{"name": "x",'), 400, {
      type: "invalid_request_error",
      code: "invalid_json",
    });
  });

  it("rejects a JSON array body", async () => {
    expectError(await post("/evaluations", [{ name: "x", type: "SSE" }]), 400, {
      type: "invalid_request_error",
      code: "invalid_json",
    });
  });

  it("names an unknown body field", async () => {
    const res = await post("/evaluations", {
      name: "x",
      type: "SSE",
      colour: "red",
    });
    expectError(res, 400, {
      type: "invalid_request_error",
      code: "parameter_unknown",
      param: "colour",
    });
  });

  it("names a missing required field", async () => {
    const res = await post("/evaluations", { type: "SSE" });
    expectError(res, 400, {
      type: "invalid_request_error",
      code: "parameter_missing",
      param: "name",
    });
  });

  it("names a bad enum value", async () => {
    const res = await post("/evaluations", { name: "x", type: "ABX" });
    expectError(res, 400, {
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "type",
    });
  });

  it("names a nested parameter with its full path", async () => {
    const res = await post("/evaluations", {
      name: "x",
      type: "SSE",
      designUrls: [{ url: "not a url" }],
    });
    expectError(res, 400, {
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "designUrls[0].url",
    });
    const deeper = await post("/evaluations", {
      name: "x",
      type: "SSE",
      designUrls: [{ url: "https://example.com/a" }, { url: "https://example.com/b", extra: 1 }],
    });
    expectError(deeper, 400, {
      type: "invalid_request_error",
      code: "parameter_unknown",
      param: "designUrls[1].extra",
    });
  });

  it("rejects a non-JSON content type", async () => {
    const res = await call(Evaluation, `${server.api}/evaluations`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "text/plain" },
      body: JSON.stringify({ name: "x", type: "SSE" }),
    });
    expectError(res, 415, {
      type: "invalid_request_error",
      code: "unsupported_media_type",
    });
  });
});

describe("list query parameters", () => {
  it.each(["0", "101", "abc", "1.5"])("rejects limit=%s naming `limit`", async (limit) => {
    const res = await call(EvaluationList, `${server.api}/evaluations?limit=${limit}`, {
      headers: bearer(key),
    });
    expectError(res, 400, {
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "limit",
    });
  });

  it("accepts the limit bounds 1 and 100", async () => {
    for (const limit of [1, 100]) {
      const res = await call(EvaluationList, `${server.api}/evaluations?limit=${limit}`, {
        headers: bearer(key),
      });
      expect(res.status).toBe(200);
    }
  });

  it("rejects starting_after and ending_before together", async () => {
    const a = await createEvaluation(server.api, bearer(key));
    const res = await call(
      EvaluationList,
      `${server.api}/evaluations?starting_after=${a.id}&ending_before=${a.id}`,
      {
        headers: bearer(key),
      },
    );
    expectError(res, 400, {
      type: "invalid_request_error",
      param: "ending_before",
    });
  });

  it("rejects a cursor that names no item with invalid_cursor", async () => {
    const res = await call(EvaluationList, `${server.api}/evaluations?starting_after=eval_doesnotexist`, {
      headers: bearer(key),
    });
    expectError(res, 400, {
      type: "invalid_request_error",
      code: "invalid_cursor",
      param: "starting_after",
    });
    const before = await call(EvaluationList, `${server.api}/evaluations?ending_before=eval_doesnotexist`, {
      headers: bearer(key),
    });
    expectError(before, 400, {
      type: "invalid_request_error",
      code: "invalid_cursor",
      param: "ending_before",
    });
  });
});

describe("ids in paths", () => {
  it("rejects control characters in a path id as a bad parameter, before any query", async () => {
    const res = await call(Evaluation, `${server.api}/evaluations/eval_%00x`, {
      headers: bearer(key),
    });
    expectError(res, 400, {
      type: "invalid_request_error",
      code: "parameter_invalid",
    });
    expect(res.body.error.param).toBe("id");
  });
});
