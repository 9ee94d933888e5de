import {
  AccessRequest,
  AccessRequestList,
  ApiKeyList,
  Autouser,
  AutouserList,
  AutouserRubric,
  AutouserRubricList,
  AutouserRunList,
  ComparisonList,
  ConnectedAppList,
  Conversation,
  ConversationList,
  ConversationMessageList,
  Evaluation,
  EvaluationInvite,
  EvaluationInviteList,
  EvaluationList,
  EvaluationShare,
  EvaluationShareList,
  EventList,
  NotificationList,
  PublicRaterList,
  Rating,
  RatingList,
  RunAutousersResult,
  TeamList,
  TeamMemberList,
  Template,
  TemplateList,
  TemplateVersionList,
  WebhookDeliveryList,
  WebhookEndpointList,
} from "@rubricon/contracts";
import type { DbOrTx } from "@rubricon/db";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { createEvaluation, expectStatus } from "./helpers/assertions";
import { insertAutouser } from "./helpers/autousers";
import {
  bearer,
  bodyOf,
  call,
  callRaw,
  mintApiKey,
  sessionHeaders,
  signUp,
  type TestUser,
} from "./helpers/clients";
import { OAuthApp } from "./helpers/oauth";
import { runningEvaluation, shareRate, startPublicRater } from "./helpers/ratings";
import type { TestServer } from "./helpers/server";
import { createEndpoint, createTeam, startWebhookServer } from "./helpers/webhooks";

/*
 * Every list the API serves must be read from an index in the list's order, so a page costs the same in a team of
 * ten rows and of a million. Each list route of the OpenAPI document is driven over HTTP (first page, after a
 * cursor, before one, each filter alone and all together, as a team-bound key and as a signed-in user of two
 * teams); every statement that reads the list is captured as the database received it and EXPLAINed, both as a
 * custom plan (the parameters' values) and as the generic plan a prepared statement settles on. Sequential scans
 * and sorts are switched off for the EXPLAIN, so the small test database plans as a large one would (it would
 * rather sort its three rows than walk an index): a plan then keeps a Sort or a Seq Scan only where no index can
 * do without it.
 */

interface Captured {
  query: string;
  params: readonly unknown[];
}

type Caller = "key" | "session";

interface Coverage {
  /** The contract of the route's answer. */
  list: z.ZodType<{ data: Record<string, unknown>[] }>;
  /** The table the list reads. */
  table: string;
  /** The route's path with its parameters filled in from the fixtures. */
  path: () => string;
  /** A value for each filter the route takes; each is driven alone, and all together. */
  filters?: Record<string, () => string>;
  callers: Caller[];
}

/**
 * Lists read in an order no single index gives, because their filter matches several disjoint ranges of it (several
 * ids, or the system templates beside a team's). Postgres reads each range through an index and sorts the union;
 * the entries are checked to do exactly that, and fail once they no longer sort, so they leave this list.
 */
const SORTED_UNIONS: { route: string; variant: RegExp; why: string }[] = [
  {
    route: "GET /teams",
    variant: /./,
    why: "the caller's teams by primary key: as many rows as memberships",
  },
  {
    route: "GET /templates",
    variant: /./,
    why: "system templates or the caller's teams' (an OR): a team's templates are few",
  },
  { route: "GET /dimensions", variant: /./, why: "the deprecated alias of GET /templates" },
  {
    route: "GET /autousers",
    // Without `source`, system personas or the team's (an OR); a user of two teams without `teamId`, both teams.
    variant: /^(?!.*source)|^session(?!.*teamId)/,
    why: "system personas or the caller's teams' autousers: a team's personas are few",
  },
  {
    route: "GET /evaluations",
    variant: /^session( status)?, /,
    why:
      "a signed-in user's list adds the evaluations shared with them: each share (by index) finds its evaluation by " +
      "primary key, and those rows are sorted with the teams' pages; a user's shares are few",
  },
];

let server: TestServer;
let database: TestDatabase;
const log: Captured[] = [];
let user: TestUser;
let key: string;
let fx: {
  otherTeam: string;
  peerEvaluationId: string;
  evaluationId: string;
  ratedEvaluationId: string;
  comparisonId: string;
  templateId: string;
  endpointId: string;
  autouserId: string;
  conversationId: string;
};

const COVERAGE: Record<string, Coverage> = {
  "GET /evaluations": {
    list: EvaluationList,
    table: "evaluations",
    path: () => "/evaluations",
    filters: { status: () => "Draft", teamId: () => user.teamId },
    callers: ["key", "session"],
  },
  "GET /evaluations/{id}/comparisons": {
    list: ComparisonList,
    table: "comparisons",
    path: () => `/evaluations/${fx.ratedEvaluationId}/comparisons`,
    callers: ["key"],
  },
  "GET /evaluations/{id}/ratings": {
    list: RatingList,
    table: "ratings",
    path: () => `/evaluations/${fx.ratedEvaluationId}/ratings`,
    filters: { comparisonId: () => fx.comparisonId, raterType: () => "user" },
    callers: ["key"],
  },
  "GET /evaluations/{id}/public-raters": {
    list: PublicRaterList,
    table: "public_raters",
    path: () => `/evaluations/${fx.ratedEvaluationId}/public-raters`,
    callers: ["key"],
  },
  "GET /templates": {
    list: TemplateList,
    table: "templates",
    path: () => "/templates",
    filters: { teamId: () => user.teamId },
    callers: ["key", "session"],
  },
  "GET /templates/{id}/versions": {
    list: TemplateVersionList,
    table: "template_versions",
    path: () => `/templates/${fx.templateId}/versions`,
    callers: ["key"],
  },
  "GET /dimensions": {
    list: TemplateList,
    table: "templates",
    path: () => "/dimensions",
    filters: { teamId: () => user.teamId },
    callers: ["key"],
  },
  "GET /dimensions/{id}/versions": {
    list: TemplateVersionList,
    table: "template_versions",
    path: () => `/dimensions/${fx.templateId}/versions`,
    callers: ["key"],
  },
  "GET /autousers": {
    list: AutouserList,
    table: "autousers",
    path: () => "/autousers",
    filters: {
      visibility: () => "private",
      status: () => "draft",
      source: () => "team",
      teamId: () => user.teamId,
    },
    callers: ["key", "session"],
  },
  "GET /autousers/{id}/rubrics": {
    list: AutouserRubricList,
    table: "autouser_rubrics",
    path: () => `/autousers/${fx.autouserId}/rubrics`,
    callers: ["key"],
  },
  "GET /api-keys": { list: ApiKeyList, table: "api_keys", path: () => "/api-keys", callers: ["session"] },
  "GET /teams/{id}/api-keys": {
    list: ApiKeyList,
    table: "api_keys",
    path: () => `/teams/${user.teamId}/api-keys`,
    callers: ["session"],
  },
  "GET /oauth/connected-apps": {
    list: ConnectedAppList,
    table: "oauth_grants",
    path: () => "/oauth/connected-apps",
    callers: ["session"],
  },
  "GET /teams": { list: TeamList, table: "teams", path: () => "/teams", callers: ["key", "session"] },
  "GET /teams/{id}/members": {
    list: TeamMemberList,
    table: "team_members",
    path: () => `/teams/${user.teamId}/members`,
    callers: ["session"],
  },
  "GET /evaluations/{id}/autouser-runs": {
    list: AutouserRunList,
    table: "autouser_runs",
    path: () => `/evaluations/${fx.ratedEvaluationId}/autouser-runs`,
    callers: ["key"],
  },
  "GET /evaluations/{id}/shares": {
    list: EvaluationShareList,
    table: "evaluation_shares",
    path: () => `/evaluations/${fx.ratedEvaluationId}/shares`,
    callers: ["key", "session"],
  },
  "GET /evaluations/{id}/invites": {
    list: EvaluationInviteList,
    table: "invites",
    path: () => `/evaluations/${fx.ratedEvaluationId}/invites`,
    callers: ["key", "session"],
  },
  "GET /evaluations/{id}/access-requests": {
    list: AccessRequestList,
    table: "access_requests",
    path: () => `/evaluations/${fx.ratedEvaluationId}/access-requests`,
    filters: { status: () => "pending" },
    callers: ["key", "session"],
  },
  "GET /evaluations/{id}/access-requests/mine": {
    list: AccessRequestList,
    table: "access_requests",
    path: () => `/evaluations/${fx.peerEvaluationId}/access-requests/mine`,
    callers: ["session"],
  },
  "GET /access-requests/inbox": {
    list: AccessRequestList,
    table: "access_requests",
    path: () => "/access-requests/inbox",
    filters: { status: () => "pending" },
    callers: ["key", "session"],
  },
  "GET /notifications": {
    list: NotificationList,
    table: "notifications",
    path: () => "/notifications",
    callers: ["session"],
  },
  "GET /webhooks": {
    list: WebhookEndpointList,
    table: "webhook_endpoints",
    path: () => "/webhooks",
    filters: { teamId: () => user.teamId },
    callers: ["key"],
  },
  "GET /webhooks/{id}/deliveries": {
    list: WebhookDeliveryList,
    table: "webhook_deliveries",
    path: () => `/webhooks/${fx.endpointId}/deliveries`,
    filters: { status: () => "pending" },
    callers: ["key"],
  },
  "GET /conversations": {
    list: ConversationList,
    table: "conversations",
    path: () => "/conversations",
    filters: { teamId: () => user.teamId },
    callers: ["key"],
  },
  "GET /conversations/{id}/messages": {
    list: ConversationMessageList,
    table: "conversation_messages",
    path: () => `/conversations/${fx.conversationId}/messages`,
    callers: ["key"],
  },
  "GET /events": {
    list: EventList,
    table: "events",
    path: () => "/events",
    filters: {
      type: () => "evaluation.created",
      object_id: () => fx.evaluationId,
      teamId: () => user.teamId,
    },
    callers: ["key"],
  },
};

const PAGE_PARAMS = new Set(["limit", "starting_after", "ending_before", "cursor"]);

interface Operation {
  parameters?: { name: string; in: string }[];
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: { object?: { const?: string } } }> };
}

/** Every GET whose 200 answer is the list envelope, with its query parameters. */
function listRoutes(doc: OpenApi): Map<string, string[]> {
  const routes = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    const op = ops.get;
    const ref = op?.responses["200"]?.content?.["application/json"]?.schema?.$ref;
    const schema = ref ? doc.components.schemas[ref.replace("#/components/schemas/", "")] : undefined;
    if (!op || schema?.properties?.object?.const !== "list") continue;
    routes.set(
      `GET ${path}`,
      (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
    );
  }
  return routes;
}

beforeAll(async () => {
  database = await createTestDatabase(process.env, {
    onQuery: (query, params) => log.push({ query, params: [...params] }),
  });
  server = await startWebhookServer({ database });
  user = await signUp(server, "lists");
  key = await mintApiKey(server, user, ["*"]);
  const headers = bearer(key);
  // The endpoint first, so the evaluations below leave deliveries on it.
  const endpoint = await createEndpoint(server, headers, {
    url: "https://93.184.216.34/hooks",
    enabled_events: ["*"],
  });
  const otherTeam = await createTeam(server, user, "Second team");
  const evaluation = await createEvaluation(server.api, headers);
  await createEvaluation(server.api, headers, { name: "Second", type: "SSE" });
  await createEvaluation(server.api, sessionHeaders(server, user), {
    name: "Elsewhere",
    type: "SSE",
    teamId: otherTeam,
  });
  const rated = await runningEvaluation(server, headers, { extra: { shareAccess: "ANYONE_WITH_LINK" } });
  for (const comparisonId of rated.comparisonIds) {
    const res = await call(Rating, `${server.api}/evaluations/${rated.evaluation.id}/ratings`, {
      method: "POST",
      headers,
      body: { comparisonId, dimensionRatings: { overall: 5 } },
    });
    expect(res.status).toBe(201);
  }
  const rater = await startPublicRater(server, rated.evaluation.shareToken);
  expect(rater.status).toBe(201);
  const shared = await shareRate(server, rated.evaluation.shareToken, rater.cookie, {
    comparisonId: rated.comparisonIds[0],
    dimensionRatings: { overall: 4 },
  });
  expect(shared.status).toBe(201);
  const template = await call(Template, `${server.api}/templates`, {
    method: "POST",
    headers,
    body: { teamId: user.teamId, name: "Clarity" },
  });
  expectStatus(template, 201);
  const edited = await call(Template, `${server.api}/templates/${template.body.id}`, {
    method: "PATCH",
    headers,
    body: { name: "Clarity, again" },
  });
  expect(edited.status).toBe(200);
  const autouser = await call(Autouser, `${server.api}/autousers`, {
    method: "POST",
    headers,
    body: { name: "Lister", role: "A persona to list" },
  });
  expectStatus(autouser, 201);
  const autouserId = autouser.body.id;
  await call(Autouser, `${server.api}/autousers`, {
    method: "POST",
    headers,
    body: { name: "Second lister", role: "Another persona to list" },
  });
  for (const dimensionId of ["overall", "usability", "content"]) {
    expectStatus(
      await call(AutouserRubric, `${server.api}/autousers/${autouserId}/rubrics`, {
        method: "POST",
        headers,
        body: { dimensionId },
      }),
      201,
    );
  }
  const runAutouserId = await insertAutouser(server, user.teamId);
  const runs = await call(
    RunAutousersResult,
    `${server.api}/evaluations/${rated.evaluation.id}/run-autousers`,
    {
      method: "POST",
      headers,
      body: { autouserIds: [runAutouserId], agentCount: 3 },
    },
  );
  expectStatus(runs, 202);
  // A third-party app the user connected, through the real authorization flow.
  await (await OAuthApp.discover(server)).token(user);
  // People outside the team: a peer who asks for access and is shared with, and who shares back.
  const peer = await signUp(server, "peer");
  const peerHeaders = sessionHeaders(server, peer);
  for (const body of [{}, {}]) {
    const asked = await call(
      AccessRequest,
      `${server.api}/evaluations/${rated.evaluation.id}/access-requests`,
      {
        method: "POST",
        headers: peerHeaders,
        body,
      },
    );
    expectStatus(asked, 201);
    const declined = await call(
      AccessRequest,
      `${server.api}/evaluations/${rated.evaluation.id}/access-requests/${asked.body.id}/decline`,
      { method: "POST", headers: sessionHeaders(server, user), body: {} },
    );
    expectStatus(declined, 200);
  }
  const pending = await call(
    AccessRequest,
    `${server.api}/evaluations/${rated.evaluation.id}/access-requests`,
    {
      method: "POST",
      headers: peerHeaders,
      body: { message: "pending" },
    },
  );
  expectStatus(pending, 201);
  expectStatus(
    await call(EvaluationShare, `${server.api}/evaluations/${rated.evaluation.id}/shares`, {
      method: "POST",
      headers,
      body: { userId: peer.userId, permission: "VIEWER" },
    }),
    201,
  );
  for (const email of ["one@example.com", "two@example.com"]) {
    expectStatus(
      await call(EvaluationInvite, `${server.api}/evaluations/${rated.evaluation.id}/invites`, {
        method: "POST",
        headers,
        body: { email },
      }),
      201,
    );
  }
  const peerEvaluation = await createEvaluation(server.api, peerHeaders, {
    name: "Peer's study",
    type: "SSE",
    status: "Running",
    shareAccess: "ANYONE_WITH_LINK",
  });
  for (const message of ["first", "second"]) {
    const mine = await call(AccessRequest, `${server.api}/evaluations/${peerEvaluation.id}/access-requests`, {
      method: "POST",
      headers: sessionHeaders(server, user),
      body: { message },
    });
    expectStatus(mine, 201);
    if (message === "first") {
      expectStatus(
        await call(
          AccessRequest,
          `${server.api}/evaluations/${peerEvaluation.id}/access-requests/${mine.body.id}/withdraw`,
          { method: "POST", headers: sessionHeaders(server, user), body: {} },
        ),
        200,
      );
      // Past the cool-down that follows a withdraw, so the second request is taken.
      await server.database.db.execute(
        sql`update access_requests set decided_at = decided_at - interval '1 hour' where id = ${mine.body.id}`,
      );
    }
  }
  expectStatus(
    await call(EvaluationShare, `${server.api}/evaluations/${peerEvaluation.id}/shares`, {
      method: "POST",
      headers: peerHeaders,
      body: { userId: user.userId, permission: "VIEWER" },
    }),
    201,
  );
  const conversation = bodyOf(
    await call(Conversation, `${server.api}/conversations`, { method: "POST", headers, body: {} }),
  );
  // One exchange, so the messages list has items to page from.
  const reply = await fetch(`${server.api}/conversations/${conversation.id}/messages`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify({ role: "user", parts: [{ type: "text", text: "Rate https://example.com/a" }] }),
  });
  expect(reply.status).toBe(200);
  expect(await reply.text()).toContain("event: message");
  fx = {
    peerEvaluationId: peerEvaluation.id,
    conversationId: conversation.id,
    otherTeam,
    evaluationId: evaluation.id,
    ratedEvaluationId: rated.evaluation.id,
    comparisonId: rated.comparisonIds[0]!,
    templateId: template.body.id,
    endpointId: endpoint.id,
    autouserId,
  };
});
afterAll(async () => {
  await server?.close();
  await database?.dispose();
});

/** The statements one request sent; requests here run one at a time and the app does no background work. */
async function captured(url: string, headers: Record<string, string>, list: Coverage["list"]) {
  const from = log.length;
  const res = await call(list, url, { headers });
  expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
  return { body: bodyOf(res), statements: log.slice(from) };
}

/** A statement that reads the list: its ORDER BY is on the listed table. */
const readsList = (table: string) => (s: Captured) =>
  /^\s*(select|with)\b/i.test(s.query) && s.query.includes(`order by "${table}".`);

interface Visit {
  route: string;
  table: string;
  variant: string;
  statement: Captured;
}

/** Drives one list route in every variant and answers the list statements it ran. */
async function drive(route: string, coverage: Coverage, queryParams: string[]): Promise<Visit[]> {
  const visits: Visit[] = [];
  const filters = Object.entries(coverage.filters ?? {});
  const filterSets: [string, () => string][][] = [[], ...filters.map((f) => [f])];
  if (filters.length > 1) filterSets.push(filters);
  const paged = queryParams.includes("starting_after");
  for (const caller of coverage.callers) {
    const headers = caller === "key" ? bearer(key) : sessionHeaders(server, user);
    for (const set of filterSets) {
      const filterQuery = set.map(([name, value]) => `${name}=${encodeURIComponent(value())}`);
      const label = [caller, ...set.map(([name]) => name)].join(" ");
      const url = (page: string[]) => {
        const query = [...filterQuery, ...page].join("&");
        return `${server.api}${coverage.path()}${query ? `?${query}` : ""}`;
      };
      const first = await captured(url(paged ? ["limit=2"] : []), headers, coverage.list);
      // A cursor must name an item of the list, so each variant needs one to page from.
      expect(first.body.data.length, `${route} (${label}) has items to page from`).toBeGreaterThan(0);
      const results = [{ page: "first page", statements: first.statements }];
      if (paged) {
        const [top, last] = [first.body.data[0]!.id, first.body.data.at(-1)!.id] as [string, string];
        for (const [page, extra] of [
          ["starting_after", [`limit=2`, `starting_after=${top}`]],
          ["ending_before", [`limit=2`, `ending_before=${last}`]],
        ] as const) {
          results.push({
            page,
            statements: (await captured(url([...extra]), headers, coverage.list)).statements,
          });
        }
      }
      for (const { page, statements } of results) {
        const reads = statements.filter(readsList(coverage.table));
        expect(reads.length, `${route} (${label}, ${page}) ran a statement ordering ${coverage.table}`).toBe(
          1,
        );
        visits.push({ route, table: coverage.table, variant: `${label}, ${page}`, statement: reads[0]! });
      }
    }
  }
  return visits;
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  "Parent Relationship"?: string;
  Plans?: PlanNode[];
}

/** Children that feed a node's rows; an InitPlan or SubPlan is computed on its own. */
const inputs = (node: PlanNode) =>
  (node.Plans ?? []).filter(
    (c) => c["Parent Relationship"] !== "InitPlan" && c["Parent Relationship"] !== "SubPlan",
  );

function walk(node: PlanNode, visit: (n: PlanNode) => void) {
  visit(node);
  for (const child of node.Plans ?? []) walk(child, visit);
}

/** Scans of `table` whose rows reach `node` without passing a Limit. */
function unlimitedScans(node: PlanNode, table: string): PlanNode[] {
  if (node["Relation Name"] === table) return [node];
  if (node["Node Type"] === "Limit") return [];
  return inputs(node).flatMap((c) => unlimitedScans(c, table));
}

interface PlanReport {
  seqScans: number;
  /** Sorts fed by the listed table's rows with no Limit between: the whole filtered set is sorted. */
  sortsOfList: number;
  /** Index scans of the listed table that read a bounded range (an Index Cond). */
  rangeScans: PlanNode[];
  /** The plan in one line, for failure messages. */
  outline: string;
}

function inspect(plan: PlanNode, table: string): PlanReport {
  const report: PlanReport = { seqScans: 0, sortsOfList: 0, rangeScans: [], outline: outline(plan) };
  walk(plan, (n) => {
    if (n["Relation Name"] === table && n["Node Type"] === "Seq Scan") report.seqScans++;
    if (/Sort$/.test(n["Node Type"]) && inputs(n).some((c) => unlimitedScans(c, table).length > 0))
      report.sortsOfList++;
    if (n["Relation Name"] === table && /^Index( Only)? Scan$/.test(n["Node Type"]) && n["Index Cond"])
      report.rangeScans.push(n);
  });
  return report;
}

function outline(node: PlanNode): string {
  const on = node["Index Name"] ?? node["Relation Name"];
  const children = (node.Plans ?? []).map(outline);
  return `${node["Node Type"]}${on ? ` ${on}` : ""}${children.length ? `(${children.join(", ")})` : ""}`;
}

/** Inlined as untyped literals: PREPARE infers each parameter's type from where it is used. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
    return `'${String(value).replaceAll("'", "''")}'`;
  if (Array.isArray(value))
    return `'{${value.map((v) => `"${String(v).replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`).join(",")}}'`;
  throw new Error(`unexpected parameter ${JSON.stringify(value)}`);
}

let planCount = 0;

/** The plan Postgres makes for the statement as a custom plan or as a prepared statement's generic plan. */
async function explain(db: DbOrTx, s: Captured, mode: "custom" | "generic"): Promise<PlanNode> {
  const name = `list_plan_${++planCount}`;
  return db.transaction(async (tx) => {
    await tx.execute(sql.raw("set local enable_seqscan = off"));
    await tx.execute(sql.raw("set local enable_sort = off"));
    await tx.execute(sql.raw(`set local plan_cache_mode = force_${mode}_plan`));
    await tx.execute(sql.raw(`prepare ${name} as ${s.query}`));
    const args = s.params.length ? `(${s.params.map(literal).join(", ")})` : "";
    // postgres.js answers the rows, PGlite an object holding them.
    const result: unknown = await tx.execute(sql.raw(`explain (format json) execute ${name}${args}`));
    const [row] = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
      "QUERY PLAN": unknown;
    }[];
    await tx.execute(sql.raw(`deallocate ${name}`));
    const doc = typeof row!["QUERY PLAN"] === "string" ? JSON.parse(row!["QUERY PLAN"]) : row!["QUERY PLAN"];
    return (doc as { Plan: PlanNode }[])[0]!.Plan;
  });
}

describe("list indexes", () => {
  it("reads every list route's page from an index in the list's order, with no sort and no sequential scan", async () => {
    const doc = (await callRaw(`${server.api}/openapi.json`)).body as OpenApi;
    const routes = listRoutes(doc);
    expect(routes.size).toBeGreaterThan(10);
    // A new list route, or a new filter on one, needs coverage here before it can ship.
    expect([...routes.keys()].filter((r) => !COVERAGE[r])).toEqual([]);
    expect(Object.keys(COVERAGE).filter((r) => !routes.has(r))).toEqual([]);
    const uncoveredFilters = [...routes].flatMap(([route, params]) =>
      params.filter((p) => !PAGE_PARAMS.has(p) && !COVERAGE[route]!.filters?.[p]).map((p) => `${route} ${p}`),
    );
    expect(uncoveredFilters).toEqual([]);

    const visits: Visit[] = [];
    for (const [route, params] of routes) visits.push(...(await drive(route, COVERAGE[route]!, params)));

    const failures: string[] = [];
    const explained = new Map<string, PlanReport>();
    for (const visit of visits) {
      const exempt = SORTED_UNIONS.find((e) => e.route === visit.route && e.variant.test(visit.variant));
      for (const mode of ["custom", "generic"] as const) {
        const cacheKey = `${mode}|${visit.statement.query}|${JSON.stringify(visit.statement.params)}`;
        let report = explained.get(cacheKey);
        if (!report) {
          report = inspect(await explain(database.db, visit.statement, mode), visit.table);
          explained.set(cacheKey, report);
        }
        const where = `${visit.route} (${visit.variant}, ${mode} plan: ${report.outline})`;
        if (report.seqScans > 0) failures.push(`${where}: sequential scan of ${visit.table}`);
        if (exempt) {
          if (report.sortsOfList === 0)
            failures.push(`${where}: no longer sorts its rows (${exempt.why}); remove it from SORTED_UNIONS`);
          continue;
        }
        if (report.sortsOfList > 0)
          failures.push(`${where}: sorts ${visit.table}'s rows: no index in list order`);
        if (report.rangeScans.length === 0)
          failures.push(`${where}: reads ${visit.table} through no index range (Index Cond)`);
        // After or before a cursor the page starts at the cursor in the index, not at the list's top.
        const sortColumn = new RegExp(`order by "${visit.table}"\\."(\\w+)"`).exec(
          visit.statement.query,
        )?.[1];
        if (/starting_after|ending_before/.test(visit.variant) && sortColumn) {
          if (!report.rangeScans.some((n) => n["Index Cond"]!.includes(sortColumn)))
            failures.push(`${where}: the cursor's ${sortColumn} bounds no index scan of ${visit.table}`);
        }
      }
    }
    expect(failures, failures.join("\n")).toEqual([]);

    // Each list route was read, and in every page shape its parameters allow.
    const seen = new Set(visits.map((v) => v.route));
    expect([...routes.keys()].filter((r) => !seen.has(r))).toEqual([]);
    expect(visits.length).toBeGreaterThan(60);
    expect(explained.size).toBeGreaterThan(40);
  }, 120_000);

  it("keeps one generic plan for a key's evaluation pages and reads, so Postgres does not plan them per request", async () => {
    const headers = bearer(key);
    const first = await captured(`${server.api}/evaluations?limit=2`, headers, EvaluationList);
    const top = first.body.data[0]!.id;
    const after = await captured(
      `${server.api}/evaluations?limit=2&starting_after=${top}`,
      headers,
      EvaluationList,
    );
    const from = log.length;
    expectStatus(await call(Evaluation, `${server.api}/evaluations/${top}`, { headers }), 200);
    const statements = [
      ...first.statements.filter(readsList("evaluations")),
      ...after.statements.filter(readsList("evaluations")),
      log.slice(from).find((s) => /from "evaluations" where "evaluations"\."id" = \$/.test(s.query))!,
    ];
    expect(statements).toHaveLength(3);
    for (const statement of statements) {
      // Postgres plans a prepared statement's first five executions with their values, then keeps the generic
      // plan if it costs no more than those did; a statement whose generic plan is costed higher is planned anew
      // on every execution.
      const plans = await database.db.transaction(async (tx) => {
        const name = `hot_plan_${++planCount}`;
        await tx.execute(sql.raw(`prepare ${name} as ${statement.query}`));
        const args = statement.params.length ? `(${statement.params.map(literal).join(", ")})` : "";
        for (let i = 0; i < 8; i++) await tx.execute(sql.raw(`execute ${name}${args}`));
        const result: unknown = await tx.execute(
          sql.raw(`select generic_plans, custom_plans from pg_prepared_statements where name = '${name}'`),
        );
        await tx.execute(sql.raw(`deallocate ${name}`));
        return (
          (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
            generic_plans: number | string;
          }[]
        )[0]!;
      });
      expect(Number(plans.generic_plans), statement.query.slice(0, 120)).toBeGreaterThan(0);
    }
  });
});
