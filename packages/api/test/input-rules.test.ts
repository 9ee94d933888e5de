import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation } from "./helpers/assertions";
import { bearer, callRaw, mintApiKey, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let user: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server, "rules");
  key = await mintApiKey(server, user, ["*"]);
}, 60_000);
afterAll(() => server?.close());

describe("unknown query parameters", () => {
  it("are refused as unknown body fields are: 400 parameter_unknown naming them", async () => {
    const evaluation = await createEvaluation(server.api, bearer(key), { name: "Queried", type: "SSE" });
    for (const url of [
      "/evaluations?stauts=Running",
      "/evaluations?limit=5&foo=1",
      `/evaluations/${evaluation.id}?expand=everything`,
      "/templates?teamid=x",
      `/evaluations/${evaluation.id}/results?verbose=true`,
    ]) {
      const res = await callRaw(`${server.api}${url}`, { headers: bearer(key) });
      const name = [...new URL(url, "http://x").searchParams.keys()].find((k) => k !== "limit");
      expect(res.status, url).toBe(400);
      expect(res.body, url).toMatchObject({
        error: { type: "invalid_request_error", code: "parameter_unknown", param: name },
      });
    }
    // The parameters a route takes still work.
    for (const url of [
      "/evaluations?limit=5&status=Draft",
      `/evaluations/${evaluation.id}/export?format=csv`,
    ]) {
      expect((await callRaw(`${server.api}${url}`, { headers: bearer(key) })).status, url).toBe(200);
    }
  });
});

describe("sharePassword", () => {
  it("without shareAccess PASSWORD_PROTECTED is a 400 naming it, on create and on update", async () => {
    const created = await callRaw(`${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: { name: "Open", type: "SSE", shareAccess: "ANYONE_WITH_LINK", sharePassword: "hunter22hunter" },
    });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ error: { code: "parameter_invalid", param: "sharePassword" } });
    const defaulted = await callRaw(`${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: { name: "Team only", type: "SSE", sharePassword: "hunter22hunter" },
    });
    expect(defaulted.body).toMatchObject({ error: { param: "sharePassword" } });

    const evaluation = await createEvaluation(server.api, bearer(key), { name: "Patched", type: "SSE" });
    const patched = await callRaw(`${server.api}/evaluations/${evaluation.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { sharePassword: "hunter22hunter" },
    });
    expect(patched.status).toBe(400);
    expect(patched.body).toMatchObject({ error: { code: "parameter_invalid", param: "sharePassword" } });
    const protectedLink = await callRaw(`${server.api}/evaluations/${evaluation.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { shareAccess: "PASSWORD_PROTECTED", sharePassword: "hunter22hunter" },
    });
    expect(protectedLink.status).toBe(200);
    // Once the link asks for a password, a new password alone is fine.
    const rotated = await callRaw(`${server.api}/evaluations/${evaluation.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { sharePassword: "another-password-1" },
    });
    expect(rotated.status).toBe(200);
  });
});
