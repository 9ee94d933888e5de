import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, callRaw, mintApiKey, signUp } from "./helpers/clients";
import type { TestServer } from "./helpers/server";
import { createEndpoint, startWebhookServer } from "./helpers/webhooks";

let server: TestServer;
beforeAll(async () => {
  server = await startWebhookServer();
}, 60_000);
afterAll(() => server?.close());

const ENDPOINT = { url: "https://93.184.216.34/hooks", enabled_events: ["*"] };

describe("test deliveries", () => {
  it("are limited per endpoint: a few a minute, then 429 with Retry-After in the error envelope", async () => {
    const user = await signUp(server, "tester");
    const key = await mintApiKey(server, user, ["webhooks:*"]);
    const [first, second] = [
      await createEndpoint(server, bearer(key), ENDPOINT),
      await createEndpoint(server, bearer(key), ENDPOINT),
    ];
    const test = (id: string) =>
      callRaw(`${server.api}/webhooks/${id}/test`, {
        method: "POST",
        headers: bearer(key),
        body: { type: "evaluation.completed" },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await test(first!.id)).status);
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429, 429, 429]);
    const over = await test(first!.id);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(over.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(over.body).toMatchObject({
      error: {
        type: "rate_limit_error",
        code: "rate_limit_exceeded",
        message: expect.stringContaining("endpoint"),
      },
    });
    // Another endpoint has a window of its own.
    expect((await test(second!.id)).status).toBe(202);
  });

  it("the limit is in the operation's OpenAPI entry", async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is read field by field
    const doc = (await callRaw(`${server.api}/openapi.json`)).body as any;
    const op = doc.paths["/webhooks/{id}/test"].post;
    expect(op["x-route-limit"]).toMatchObject({ key: "id", limit: 5, windowSec: 60 });
    expect(op.description).toContain("At most 5 calls per minute per endpoint");
  });
});
