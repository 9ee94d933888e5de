import { startTestServer, type TestServer } from "@rubricon/api/testing";
import {
  bootstrapAccount,
  type CoreContext,
  createEvaluation,
  setTeamLimits,
  systemClock,
} from "@rubricon/core";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareResponses, jsonDifferences, type Probe } from "./check-responses";
import { DEFAULT_ADMIN_URL } from "./seed";
import { startYardstick, type Yardstick } from "./yardstick-server";

describe("jsonDifferences", () => {
  it("names a changed value, a missing item and fields out of order by their path", () => {
    expect(jsonDifferences({ a: 1, b: [1, 2] }, { a: 2, b: [1] })).toEqual([
      "body.a: 1 vs 2",
      "body.b: 2 items vs 1",
    ]);
    expect(jsonDifferences({ a: 1, b: 2 }, { b: 2, a: 1 })).toEqual(["body: fields [a, b] vs [b, a]"]);
    expect(jsonDifferences({ a: { b: null } }, { a: { b: null } })).toEqual([]);
  });
});

// The yardstick speaks to Postgres itself (postgres.js), so this needs one: DATABASE_URL's, else the local one.
describe("the yardstick against Rubricon (Postgres)", () => {
  let database: TestDatabase;
  let server: TestServer;
  let yardstick: Yardstick;
  let sql: postgres.Sql;
  let auth: Record<string, string>;
  let teamId: string;
  let ids: string[];
  let ctx: CoreContext;

  beforeAll(async () => {
    database = await createTestDatabase({
      ...process.env,
      DATABASE_URL: process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL,
    });
    server = await startTestServer({ database });
    ctx = { db: database.db, clock: systemClock, baseUrl: server.url };
    const account = await bootstrapAccount(ctx, {
      email: "yardstick@example.com",
      password: "yardstick-password",
      teamName: "Yardstick",
      plan: "enterprise",
      scopes: ["*"],
    });
    teamId = account.teamId;
    auth = { authorization: `Bearer ${account.apiKey}` };
    await setTeamLimits(ctx, teamId, { requestsPerMinute: 1_000_000 });
    const actor = { userId: account.userId, boundTeamId: teamId, principal: "api_key" as const };
    for (let i = 0; i < 12; i++) {
      await createEvaluation(ctx, actor, {
        name: `Evaluation ${i} "quoted" é`,
        type: "SSE",
        status: "Draft",
        shareAccess: "TEAM_ONLY",
        allowMultipleRatings: false,
        collectRaterName: false,
        collectRaterEmail: false,
        evaluationMethod: "manual",
        dryRun: false,
        designUrls: Array.from({ length: i % 3 }, (_, j) => ({
          url: `https://example.com/${i}/${j}`,
          stimulusType: "URL" as const,
        })),
      });
    }
    sql = postgres(database.url!, { max: 2, onnotice: () => {} });
    // An endpoint subscribed to everything, so a create also writes the outbox.
    await sql`insert into webhook_endpoints (id, team_id, url, enabled_events, secret_hash, secret_sealed)
      values ('whe_yardstick', ${teamId}, 'https://example.com/hook', array['*'], 'x', 'x')`;
    ids = (await sql`select id from evaluations order by updated_at desc, id desc`).map(
      (r) => r.id as string,
    );
    yardstick = await startYardstick({ databaseUrl: database.url!, baseUrl: server.url });
  });

  afterAll(async () => {
    await yardstick?.close();
    await sql?.end();
    await server?.close();
  });

  it("answers the four benchmarked routes with Rubricon's bytes", async () => {
    const probes: Probe[] = [
      { route: "one evaluation", method: "GET", path: `/api/v1/evaluations/${ids[4]}`, status: 200 },
      { route: "first page", method: "GET", path: "/api/v1/evaluations?limit=5", status: 200 },
      {
        route: "later page",
        method: "GET",
        path: `/api/v1/evaluations?limit=5&starting_after=${ids[4]}`,
        status: 200,
      },
      {
        route: "last page",
        method: "GET",
        path: `/api/v1/evaluations?starting_after=${ids[6]}`,
        status: 200,
      },
      {
        route: "past the end",
        method: "GET",
        path: `/api/v1/evaluations?starting_after=${ids.at(-1)}`,
        status: 200,
      },
      {
        route: "create",
        method: "POST",
        path: "/api/v1/evaluations",
        body: JSON.stringify({
          name: "Created",
          type: "SSE",
          designUrls: [{ url: "https://example.com/a" }, { url: "https://example.com/b", label: "B" }],
        }),
        status: 201,
      },
    ];
    expect(await compareResponses(server.url, yardstick.url, auth, probes)).toEqual([]);
  });

  it("refuses an unknown cursor and an unknown key as Rubricon does", async () => {
    for (const base of [server.url, yardstick.url]) {
      const cursor = await fetch(`${base}/api/v1/evaluations?starting_after=eval_nosuchthing`, {
        headers: auth,
      });
      expect(cursor.status).toBe(400);
      expect(((await cursor.json()) as { error: { code: string } }).error.code).toBe("invalid_cursor");
      const key = await fetch(`${base}/api/v1/evaluations`, {
        headers: { authorization: "Bearer ak_live_nosuchkey" },
      });
      expect(key.status).toBe(401);
    }
  });

  it("writes the rows Rubricon writes for a create", async () => {
    const [before] =
      await sql`select count from usage_counters where team_id = ${teamId} and metric = 'evals_mo'`;
    const body = JSON.stringify({
      name: "Rows",
      type: "SSE",
      designUrls: [{ url: "https://example.com/x", label: "X" }],
    });
    const created: string[] = [];
    for (const base of [server.url, yardstick.url]) {
      const res = await fetch(`${base}/api/v1/evaluations`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body,
      });
      expect(res.status).toBe(201);
      created.push(((await res.json()) as { id: string }).id);
    }
    const [after] =
      await sql`select count from usage_counters where team_id = ${teamId} and metric = 'evals_mo'`;
    expect(after!.count).toBe(before!.count + 2);

    // Each create's rows, with what differs by nature (ids, tokens, times, request ids) made alike.
    const rowsOf = async (id: string) => {
      const [evaluation] = await sql`select * from evaluations where id = ${id}`;
      const comparisons =
        await sql`select name, position, stimulus from comparisons where evaluation_id = ${id}
        order by position`;
      const [event] = await sql`select id, type, api_version, object, payload, request_id from events
        where object_id = ${id}`;
      const deliveries = await sql`select endpoint_id, event_type, status, next_attempt_at = created_at as due
        from webhook_deliveries where event_id = ${event!.id as string}`;
      const drawn = [id, evaluation!.share_token, event!.id, event!.request_id] as string[];
      const alike = (value: unknown) => {
        let text = JSON.stringify(value);
        for (const [i, v] of drawn.entries()) text = text.split(v).join(`<drawn ${i}>`);
        return JSON.parse(
          text
            .replace(/(\\?")\d{4}-\d{2}-\d{2}T[\d:.]+Z(\\?")/g, "$1<time>$2")
            .replace(/\\"created\\":\d+/g, '\\"created\\":0'),
        ) as unknown;
      };
      return alike({
        evaluation: { ...evaluation, created_at: null, updated_at: null },
        comparisons,
        event: { ...event, id: null },
        deliveries,
      });
    };
    const [rubricon, yard] = [await rowsOf(created[0]!), await rowsOf(created[1]!)];
    expect(yard).toEqual(rubricon);
    expect(rubricon).toMatchObject({ deliveries: [{ endpoint_id: "whe_yardstick", status: "pending" }] });
  });

  it("refuses a create past the monthly quota and keeps nothing of it, as Rubricon does", async () => {
    const [used] =
      await sql`select count from usage_counters where team_id = ${teamId} and metric = 'evals_mo'`;
    await setTeamLimits(ctx, teamId, { evaluations: used!.count as number });
    const [evaluationsBefore] = await sql`select count(*)::int as n from evaluations`;
    for (const base of [server.url, yardstick.url]) {
      const res = await fetch(`${base}/api/v1/evaluations`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ name: "Over", type: "SSE", designUrls: [{ url: "https://example.com/o" }] }),
      });
      expect(res.status).toBe(429);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("quota_exceeded");
    }
    const [evaluationsAfter] = await sql`select count(*)::int as n from evaluations`;
    expect(evaluationsAfter!.n).toBe(evaluationsBefore!.n);
    const [usedAfter] =
      await sql`select count from usage_counters where team_id = ${teamId} and metric = 'evals_mo'`;
    expect(usedAfter!.count).toBe(used!.count);
  });
});
