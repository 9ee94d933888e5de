import { Comparison, ComparisonList, Evaluation } from "@rubricon/contracts";
import { fixedClock } from "@rubricon/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectStatus } from "./helpers/assertions";
import { bearer, call, mintApiKey, signUp } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

const T0 = new Date("2026-11-22T10:00:00.000Z");
const clock = fixedClock(T0);
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ clock });
  const user = await signUp(server, "comparison-order", { plan: "pro" });
  key = await mintApiKey(server, user, ["evaluations:*"]);
});
afterAll(() => server?.close());

const COUNT = 30;

async function createWithComparisons(): Promise<string> {
  const res = await call(Evaluation, `${server.api}/evaluations`, {
    method: "POST",
    headers: bearer(key),
    body: {
      name: "Ordered",
      type: "SSE",
      designUrls: Array.from({ length: COUNT }, (_, i) => ({ url: `https://example.com/${i}` })),
    },
  });
  expectStatus(res, 201);
  return res.body.id;
}

/** Every comparison of the evaluation, page by page. */
async function walk(evaluationId: string, limit: number): Promise<{ id: string; position: number }[]> {
  const all: { id: string; position: number }[] = [];
  let after: string | undefined;
  for (;;) {
    const query = `limit=${limit}${after ? `&starting_after=${after}` : ""}`;
    const page = await call(
      ComparisonList,
      `${server.api}/evaluations/${evaluationId}/comparisons?${query}`,
      {
        headers: bearer(key),
      },
    );
    expectStatus(page, 200);
    all.push(...page.body.data);
    if (!page.body.has_more) return all;
    after = page.body.next_cursor;
  }
}

describe("an evaluation's comparisons", () => {
  it("list in position order when they were created together, on one page and across pages", async () => {
    const id = await createWithComparisons();
    const inOrder = Array.from({ length: COUNT }, (_, i) => i);
    expect((await walk(id, 100)).map((c) => c.position)).toEqual(inOrder);
    expect((await walk(id, 7)).map((c) => c.position)).toEqual(inOrder);
  });

  it("still list newest first: one added or changed later comes before them", async () => {
    const id = await createWithComparisons();
    clock.set(new Date(T0.getTime() + 1000));
    const added = await call(Comparison, `${server.api}/evaluations/${id}/comparisons`, {
      method: "POST",
      headers: bearer(key),
      body: { url: "https://example.com/added" },
    });
    expect(added.status).toBe(201);
    clock.set(new Date(T0.getTime() + 2000));
    const first = (await walk(id, 100)).find((c) => c.position === 0)!;
    const renamed = await call(Comparison, `${server.api}/evaluations/${id}/comparisons/${first.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { name: "Renamed" },
    });
    expect(renamed.status).toBe(200);
    const positions = (await walk(id, 100)).map((c) => c.position);
    expect(positions).toEqual([0, COUNT, ...Array.from({ length: COUNT - 1 }, (_, i) => i + 1)]);
  });
});
