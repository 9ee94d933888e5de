import { Evaluation, EvaluationList } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectStatus } from "./helpers/assertions";
import { bearer, call, mintApiKey, signUp } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe("walking skeleton", () => {
  it("signs up, mints a key and creates and lists an evaluation over HTTP", async () => {
    const user = await signUp(server, "smoke");
    const key = await mintApiKey(server, user, ["evaluations:*"]);
    const created = await call(Evaluation, `${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: {
        name: "Checkout flow",
        type: "SSE",
        designUrls: [{ url: "https://example.com/a" }],
      },
    });
    expectStatus(created, 201);
    expect(created.body.id).toMatch(/^eval_/);
    expect(created.body.comparisonCount).toBe(1);
    const list = await call(EvaluationList, `${server.api}/evaluations`, {
      headers: bearer(key),
    });
    expectStatus(list, 200);
    expect(list.body.data.map((e) => e.id)).toEqual([created.body.id]);
    expect(list.headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
  });
});
