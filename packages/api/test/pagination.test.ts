import { ComparisonList, DeletedObject, Evaluation, EvaluationList, Team } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation, expectError, expectStatus } from "./helpers/assertions";
import { bearer, call, mintApiKey, sessionHeaders, signUp } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

type Item = { id: string; updatedAt: string };

let server: TestServer;
let key: string;
let created: Item[];

beforeAll(async () => {
  server = await startTestServer();
  const user = await signUp(server, "pages");
  key = await mintApiKey(server, user, ["evaluations:*"]);
  created = [];
  for (let i = 0; i < 25; i++) {
    created.push(
      (await createEvaluation(server.api, bearer(key), {
        name: `Evaluation ${i}`,
        type: "SSE",
      })) as Item,
    );
  }
});
afterAll(() => server?.close());

const page = async (query: string) => {
  const res = await call(EvaluationList, `${server.api}/evaluations?${query}`, {
    headers: bearer(key),
  });
  expectStatus(res, 200);
  return res;
};
const ids = (items: Item[]) => items.map((e) => e.id);

/** updatedAt desc, then id desc: the order every page follows. */
const newestFirst = (a: Item, b: Item) =>
  new Date(b.updatedAt).getTime() - new Date(a.updatedAt).getTime() ||
  (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

async function walk(limit: number): Promise<Item[][]> {
  const pages: Item[][] = [];
  let after: string | undefined;
  for (let guard = 0; guard < 20; guard++) {
    const res = await page(`limit=${limit}${after ? `&starting_after=${after}` : ""}`);
    pages.push(res.body.data);
    if (!res.body.has_more) return pages;
    expect(res.body.next_cursor).toBe(res.body.data.at(-1)!.id);
    after = res.body.next_cursor;
  }
  throw new Error("pagination did not end");
}

describe("cursor pagination", () => {
  it("walks every item exactly once, newest first, with has_more until the end", async () => {
    const pages = await walk(10);
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    const all = pages.flat();
    expect(new Set(ids(all)).size).toBe(25);
    expect(ids(all).sort()).toEqual(ids(created).sort());
    expect(ids(all)).toEqual(ids([...all].sort(newestFirst)));
    for (let i = 1; i < all.length; i++) {
      expect(new Date(all[i - 1]!.updatedAt).getTime()).toBeGreaterThanOrEqual(
        new Date(all[i]!.updatedAt).getTime(),
      );
    }
    expect(all[0]!.id).toBe([...created].sort(newestFirst)[0]!.id);
  });

  it("uses the default page size of 20", async () => {
    const res = await page("");
    expect(res.body.data).toHaveLength(20);
    expect(res.body.has_more).toBe(true);
  });

  it("has no total_count on the evaluations list", async () => {
    const res = await page("limit=5");
    expect(res.body).toMatchObject({ object: "list", has_more: true });
    expect(res.body).not.toHaveProperty("total_count");
  });

  it("returns the previous page with ending_before", async () => {
    const first = (await page("limit=10")).body;
    const second = (await page(`limit=10&starting_after=${first.next_cursor}`)).body;
    const back = (await page(`limit=10&ending_before=${second.data[0]!.id}`)).body;
    expect(ids(back.data)).toEqual(ids(first.data));
    expect(back.has_more).toBe(false);

    const third = (await page(`limit=10&starting_after=${second.next_cursor}`)).body;
    const backToSecond = (await page(`limit=10&ending_before=${third.data[0]!.id}`)).body;
    expect(ids(backToSecond.data)).toEqual(ids(second.data));
    expect(backToSecond.has_more).toBe(true);
  });

  it("answers an empty last page with has_more false", async () => {
    const all = (await walk(100)).flat();
    const res = await page(`starting_after=${all.at(-1)!.id}`);
    expect(res.body.data).toEqual([]);
    expect(res.body.has_more).toBe(false);
    expect(res.body).not.toHaveProperty("next_cursor");
  });

  it("keeps working when the cursor names a deleted item", async () => {
    const before = (await walk(10)).flat();
    const cursor = before[9]!.id;
    const expected = ids(before.slice(10, 20));
    const del = await call(DeletedObject, `${server.api}/evaluations/${cursor}`, {
      method: "DELETE",
      headers: bearer(key),
    });
    expect(del.status).toBe(200);
    const res = await page(`limit=10&starting_after=${cursor}`);
    expect(ids(res.body.data)).toEqual(expected);
    const backwards = await page(`limit=3&ending_before=${cursor}`);
    expect(ids(backwards.body.data)).toEqual(ids(before.slice(6, 9)));
  });

  it("refuses a cursor from another list", async () => {
    const other = await createEvaluation(server.api, bearer(key), {
      name: "with comparison",
      type: "SSE",
      designUrls: [{ url: "https://a.example" }],
    });
    const res = await call(
      ComparisonList,
      `${server.api}/evaluations/${other.id}/comparisons?starting_after=${other.id}`,
      {
        headers: bearer(key),
      },
    );
    expectError(res, 400, {
      type: "invalid_request_error",
      code: "invalid_cursor",
      param: "starting_after",
    });
    await call(DeletedObject, `${server.api}/evaluations/${other.id}`, {
      method: "DELETE",
      headers: bearer(key),
    });
  });
});

describe("legacy cursor", () => {
  it("works like starting_after and flags the response deprecated", async () => {
    const first = (await page("limit=5")).body;
    const modern = await page(`limit=5&starting_after=${first.next_cursor}`);
    expect(modern.headers.get("deprecation")).toBeNull();
    const legacy = await page(`limit=5&cursor=${first.next_cursor}`);
    expect(legacy.headers.get("deprecation")).toBe("true");
    expect(legacy.headers.get("sunset")).toMatch(/2027/);
    expect(ids(legacy.body.data)).toEqual(ids(modern.body.data));
  });

  it("cannot be combined with the new cursors", async () => {
    const first = (await page("limit=5")).body;
    const res = await call(
      EvaluationList,
      `${server.api}/evaluations?cursor=${first.next_cursor}&starting_after=${first.next_cursor}`,
      {
        headers: bearer(key),
      },
    );
    expectError(res, 400, { type: "invalid_request_error", param: "cursor" });
  });
});

describe("filtered and scoped lists", () => {
  it("pages a status filter both ways and refuses a cursor outside the filter", async () => {
    const running: Item[] = [];
    for (let i = 0; i < 3; i++) {
      const e = await createEvaluation(server.api, bearer(key), {
        name: `Running ${i}`,
        type: "SSE",
        designUrls: [{ url: "https://running.example" }],
      });
      const res = await call(Evaluation, `${server.api}/evaluations/${e.id}`, {
        method: "PATCH",
        headers: bearer(key),
        body: { status: "Running" },
      });
      expectStatus(res, 200);
      running.push(res.body);
    }
    const expected = ids([...running].sort(newestFirst));
    const first = (await page("status=Running&limit=2")).body;
    expect(ids(first.data)).toEqual(expected.slice(0, 2));
    // Listed items carry what a read of one carries: the comparison count and the templates' names.
    for (const item of first.data) {
      expect(item.comparisonCount).toBe(1);
      expect(item.templates).toEqual([
        { id: "overall", name: expect.any(String), version: expect.any(Number) },
      ]);
    }
    const unfiltered = (await page("limit=100")).body.data as { id: string; comparisonCount: number }[];
    expect(unfiltered.filter((e) => expected.includes(e.id)).map((e) => e.comparisonCount)).toEqual([
      1, 1, 1,
    ]);
    expect(unfiltered.filter((e) => !expected.includes(e.id)).every((e) => e.comparisonCount === 0)).toBe(
      true,
    );
    expect(first.has_more).toBe(true);
    const second = (await page(`status=Running&limit=2&starting_after=${first.next_cursor}`)).body;
    expect(ids(second.data)).toEqual(expected.slice(2));
    expect(second.has_more).toBe(false);
    const back = (await page(`status=Running&limit=2&ending_before=${expected[2]}`)).body;
    expect(ids(back.data)).toEqual(expected.slice(0, 2));

    const draft = created.at(-1)!.id;
    const outside = await call(
      EvaluationList,
      `${server.api}/evaluations?status=Running&starting_after=${draft}`,
      {
        headers: bearer(key),
      },
    );
    expectError(outside, 400, {
      type: "invalid_request_error",
      code: "invalid_cursor",
      param: "starting_after",
    });
  });

  it("refuses another team's evaluation as a cursor, in either direction", async () => {
    const stranger = await signUp(server, "stranger");
    const strangerKey = await mintApiKey(server, stranger, ["evaluations:*"]);
    const theirs = await createEvaluation(server.api, bearer(strangerKey), { name: "Theirs", type: "SSE" });
    for (const param of ["starting_after", "ending_before"]) {
      const res = await call(EvaluationList, `${server.api}/evaluations?${param}=${theirs.id}`, {
        headers: bearer(key),
      });
      expectError(res, 400, { type: "invalid_request_error", code: "invalid_cursor", param });
    }
  });

  it("pages a user's evaluations across all their teams as one list, in both directions", async () => {
    const member = await signUp(server, "member");
    const headers = sessionHeaders(server, member);
    const second = await call(Team, `${server.api}/teams`, {
      method: "POST",
      headers,
      body: { name: "Second" },
    });
    expectStatus(second, 201);
    const mine: Item[] = [];
    for (let i = 0; i < 5; i++) {
      const teamId = i % 2 === 0 ? member.teamId : second.body.id;
      mine.push(
        (await createEvaluation(server.api, headers, { name: `Shared ${i}`, type: "SSE", teamId })) as Item,
      );
    }
    const expected = ids([...mine].sort(newestFirst));
    const list = async (query: string) => {
      const res = await call(EvaluationList, `${server.api}/evaluations?${query}`, { headers });
      expectStatus(res, 200);
      return res.body;
    };
    const first = await list("limit=2");
    expect(ids(first.data)).toEqual(expected.slice(0, 2));
    expect(first.has_more).toBe(true);
    const middle = await list(`limit=2&starting_after=${first.next_cursor}`);
    expect(ids(middle.data)).toEqual(expected.slice(2, 4));
    const last = await list(`limit=2&starting_after=${middle.next_cursor}`);
    expect(ids(last.data)).toEqual(expected.slice(4));
    expect(last.has_more).toBe(false);
    const back = await list(`limit=2&ending_before=${expected[4]}`);
    expect(ids(back.data)).toEqual(expected.slice(2, 4));
    // The teams of the list only: another user's evaluation is no cursor here.
    const outside = await call(EvaluationList, `${server.api}/evaluations?starting_after=${created[0]!.id}`, {
      headers,
    });
    expectError(outside, 400, {
      type: "invalid_request_error",
      code: "invalid_cursor",
      param: "starting_after",
    });
  });
});
