import {
  comparisons,
  type Db,
  type DbOrTx,
  evaluations,
  newId,
  schema,
  teams,
  templates,
  usageCounters,
  users,
  webhookEndpoints,
} from "@rubricon/db";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { getTableName, inArray, is } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type CreatedRows, insertCreatedEvaluation } from "../src/evaluation/evaluations/create-statement";
import {
  ApiError,
  billingPeriod,
  type CoreContext,
  type EvaluationRow,
  emitEvent,
  fixedClock,
  type LimitPolicy,
  recordUsage,
  stimulusFor,
  toEvaluation,
  toEvaluationEventObject,
  usageTerms,
} from "../src/index";

/*
 * An evaluation's create writes its rows in one hand-written statement (`create-statement.ts`): the evaluation, its
 * comparisons, the quota count, the `evaluation.created` event and the event's webhook deliveries. Everywhere else
 * those rows are written by plain inserts, `recordUsage` and `emitEvent` (which enqueues the deliveries). Each case
 * below runs both on the same input, each in a database of its own seeded alike, and compares every row of every
 * table afterwards; only the ids the writes draw themselves (the event's, the deliveries') are normalised.
 */

let hand: TestDatabase;
let general: TestDatabase;
const NOW = new Date("2026-11-24T09:08:07.654Z");
const clock = fixedClock(NOW);
const BASE_URL = "https://rubricon.example";

beforeAll(async () => {
  [hand, general] = await Promise.all([createTestDatabase(), createTestDatabase()]);
}, 240_000);
afterAll(async () => {
  await Promise.all([hand?.dispose(), general?.dispose()]);
});

const ctxFor = (db: Db, extra: Partial<CoreContext> = {}): CoreContext => ({
  db,
  clock,
  baseUrl: BASE_URL,
  ...extra,
});

/** The general path: the same rows through the functions every other write uses, in one transaction. */
async function createThroughGeneralPath(ctx: CoreContext, created: CreatedRows, team: TeamRow) {
  const { row } = created;
  return ctx.db.transaction(async (tx) => {
    await recordUsage(tx, team, "evals_mo", row.createdAt, 1, { policy: ctx.limits });
    await tx.insert(evaluations).values(row);
    if (created.comparisons.length > 0) {
      await tx.insert(comparisons).values(
        created.comparisons.map((c) => ({
          ...c,
          evaluationId: row.id,
          createdAt: row.createdAt,
          updatedAt: row.createdAt,
        })),
      );
    }
    const refs = await templateRefs(tx, row.selectedDimensionIds);
    const evaluation = toEvaluation(row, created.comparisons.length, ctx.baseUrl, refs);
    await emitEvent(tx, ctx, {
      type: "evaluation.created",
      teamId: row.teamId,
      object: toEvaluationEventObject(evaluation),
    });
    return evaluation.templates;
  });
}

async function templateRefs(db: DbOrTx, ids: string[]) {
  const rows = await db
    .select({ id: templates.id, name: templates.name, version: templates.version })
    .from(templates)
    .where(inArray(templates.id, ids));
  return new Map(rows.map((t) => [t.id, { name: t.name, version: t.version }]));
}

/** The hand-written path, given exactly what `createEvaluation` gives it. */
function createThroughStatement(ctx: CoreContext, created: CreatedRows) {
  return insertCreatedEvaluation(ctx.db, ctx, created);
}

type TeamRow = { id: string; plan: "free" | "team" | "pro" | "enterprise"; customLimits: null };

/** Ids of everything seeded or passed in; any other id in a row was drawn by the write. */
const known = new Set<string>();
const remember = <T extends string>(id: T): T => {
  known.add(id);
  return id;
};

const userId = remember(newId("user"));
// A name and a template name that JSON escapes: quotes, backslashes, control characters, non-ASCII, U+2028.
const TRICKY = 'Q3 "launch" \\ tab\there\u0001 é 😀 \u2028 </script>';
const customTemplateId = remember(newId("template"));

async function seed(db: Db, teamRows: TeamRow[], endpoints: (typeof webhookEndpoints.$inferInsert)[]) {
  await db
    .insert(teams)
    .values(teamRows.map((t) => ({ ...t, name: `Team ${t.id}`, createdAt: NOW, updatedAt: NOW })));
  if (endpoints.length > 0) await db.insert(webhookEndpoints).values(endpoints);
}

async function seedBoth(teamRows: TeamRow[], endpoints: (typeof webhookEndpoints.$inferInsert)[] = []) {
  for (const t of teamRows) remember(t.id);
  for (const e of endpoints) remember(e.id!);
  await Promise.all([seed(hand.db, teamRows, endpoints), seed(general.db, teamRows, endpoints)]);
}

beforeAll(async () => {
  for (const db of [hand.db, general.db]) {
    await db
      .insert(users)
      .values({ id: userId, email: `${userId}@example.com`, createdAt: NOW, updatedAt: NOW });
    await db.insert(templates).values({
      id: customTemplateId,
      name: TRICKY,
      version: 3,
      isSystem: true,
      body: {} as never,
      createdAt: NOW,
      updatedAt: NOW,
    });
  }
}, 60_000);

function endpoint(teamId: string, enabledEvents: string[], status: "enabled" | "disabled" = "enabled") {
  return {
    id: newId("webhookEndpoint"),
    teamId,
    url: "https://hooks.example/in",
    enabledEvents,
    status,
    secretHash: "0".repeat(64),
    secretSealed: "sealed",
    failureWindowStart: NOW,
    createdAt: NOW,
    updatedAt: NOW,
  };
}

function createdRows(
  teamId: string,
  overrides: Partial<EvaluationRow> = {},
  comparisonCount = 2,
): CreatedRows {
  const now = clock.now();
  const row: EvaluationRow = {
    id: remember(newId("evaluation")),
    teamId,
    createdBy: userId,
    name: TRICKY,
    description: "Which page reads better?",
    type: "SxS",
    status: "Draft",
    shareAccess: "TEAM_ONLY",
    shareToken: `token-${newId("evaluation").slice(5)}`,
    sharePasswordHash: null,
    shareAccessVersion: 1,
    allowMultipleRatings: false,
    evaluationMethod: "manual",
    instructions: "Look at both.\nPick one.",
    scenario: null,
    selectedDimensionIds: [customTemplateId, "overall"],
    selectedAutousers: [],
    ratingDeadline: new Date("2026-12-01T00:00:00.000Z"),
    targetRatingsPerComparison: 3,
    collectRaterName: true,
    collectRaterEmail: false,
    ratingsRevision: 0,
    ratingChanges: 0,
    endedAt: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
  const comparisonRows = Array.from({ length: comparisonCount }, (_, position) => ({
    id: remember(newId("comparison")),
    name: position === 0 ? TRICKY : null,
    position,
    stimulus: stimulusFor("SxS", {
      currentUrl: `https://a.example/${position}`,
      variantUrl: `https://b.example/"${position}"`,
    }),
  }));
  const evaluation = toEvaluation(row, comparisonRows.length, BASE_URL, new Map());
  return {
    row,
    comparisons: comparisonRows,
    eventObject: toEvaluationEventObject(evaluation),
    usage: usageTermsFor(teamId, row.createdAt),
  };
}

let teamPlans = new Map<string, TeamRow>();
let policy: LimitPolicy | undefined;
const usageTermsFor = (teamId: string, now: Date) =>
  usageTerms(teamPlans.get(teamId)!, "evals_mo", now, 1, { policy });

type Snapshot = Record<string, Record<string, unknown>[]>;

/** Every row of every table, each table's rows in a stable order. */
async function snapshot(db: Db): Promise<Snapshot> {
  const tables = (Object.values(schema) as unknown[]).filter((t): t is PgTable => is(t, PgTable));
  const out: Snapshot = {};
  for (const table of tables.sort((a, b) => getTableName(a).localeCompare(getTableName(b)))) {
    const rows = (await db.select().from(table)) as Record<string, unknown>[];
    out[getTableName(table)] = rows;
  }
  return out;
}

const ID = /\b[a-z]+_[a-z][a-z0-9]{23}\b/g;

/**
 * Ids the writes drew are replaced by `<id n>`, numbered in the order they first appear once rows are sorted with
 * those ids masked, so both databases number them alike. Everything else, timestamps included, stays as written.
 */
function normalised(snap: Snapshot): Snapshot {
  const mask = (text: string) => text.replace(ID, (id) => (known.has(id) ? id : "<id>"));
  const serialise = (row: Record<string, unknown>) => JSON.stringify(row, (_k, v) => v);
  const numbers = new Map<string, string>();
  const renumber = (text: string) =>
    text.replace(ID, (id) => {
      if (known.has(id)) return id;
      let n = numbers.get(id);
      if (!n) {
        n = `<id ${numbers.size + 1}>`;
        numbers.set(id, n);
      }
      return n;
    });
  const out: Snapshot = {};
  for (const [table, rows] of Object.entries(snap)) {
    const sorted = rows
      .map((row) => ({ row, key: mask(serialise(row)) }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    out[table] = sorted.map(({ row }) => JSON.parse(renumber(serialise(row))) as Record<string, unknown>);
  }
  return out;
}

async function expectSameRows(): Promise<Snapshot> {
  const [a, b] = await Promise.all([snapshot(hand.db), snapshot(general.db)]);
  const [left, right] = [normalised(a), normalised(b)];
  for (const table of Object.keys(left)) {
    expect(left[table], `rows of ${table}`).toEqual(right[table]);
  }
  expect(Object.keys(left)).toEqual(Object.keys(right));
  return left;
}

async function createOnBoth(teamId: string, ctxExtra: Partial<CoreContext> = {}, overrides = {}) {
  const created = createdRows(teamId, overrides);
  const team = teamPlans.get(teamId)!;
  const outcomes = await Promise.allSettled([
    createThroughStatement(ctxFor(hand.db, ctxExtra), created),
    createThroughGeneralPath(ctxFor(general.db, ctxExtra), created, team),
  ]);
  return outcomes;
}

async function team(
  plan: TeamRow["plan"],
  endpoints: (id: string) => ReturnType<typeof endpoint>[] = () => [],
) {
  const row: TeamRow = { id: newId("team"), plan, customLimits: null };
  teamPlans = new Map(teamPlans).set(row.id, row);
  await seedBoth([row], endpoints(row.id));
  return row.id;
}

describe("the hand-written create statement writes what the general path writes", () => {
  it("with subscribed endpoints past the ids drawn up front, a request id and an idempotency key", async () => {
    const other = await team("team", (id) => [endpoint(id, ["*"])]);
    const teamId = await team("team", (id) => [
      endpoint(id, ["evaluation.created"]),
      endpoint(id, ["*"]),
      endpoint(id, ["evaluation.updated", "evaluation.created"]),
      endpoint(id, ["evaluation.created"], "disabled"),
      endpoint(id, ["evaluation.updated"]),
    ]);
    const request = { id: "req_create_statement", idempotencyKey: "same-input-key" };
    const [a, b] = await createOnBoth(teamId, { request });
    expect(a).toEqual({ status: "fulfilled", value: expect.any(Array) });
    expect(a).toEqual(b);
    expect((a as PromiseFulfilledResult<unknown>).value).toEqual([
      { id: customTemplateId, name: TRICKY, version: 3 },
      { id: "overall", name: "Overall quality", version: 1 },
    ]);
    const rows = await expectSameRows();
    // The comparison covers what it should: the create's rows are there, once each.
    expect(rows.events!.filter((e) => e.teamId === teamId)).toHaveLength(1);
    expect(rows.webhook_deliveries!.filter((d) => d.teamId === teamId)).toHaveLength(3);
    // Another team's endpoint, even subscribed to everything, is not sent this team's event.
    expect(rows.webhook_deliveries!.filter((d) => d.teamId === other)).toHaveLength(0);
    expect(rows.comparisons).toHaveLength(2);
    expect(rows.usage_counters!.find((u) => u.teamId === teamId)?.count).toBe(1);
  });

  it("counting onto the period's existing total, without a request, with no endpoints", async () => {
    const teamId = await team("team");
    for (let i = 0; i < 2; i++) {
      clock.advance(1_000);
      const [a, b] = await createOnBoth(teamId, {}, { status: "Running", shareAccess: "ANYONE_WITH_LINK" });
      expect(a.status).toBe("fulfilled");
      expect(a).toEqual(b);
    }
    const rows = await expectSameRows();
    expect(rows.usage_counters!.find((u) => u.teamId === teamId)?.count).toBe(2);
    expect(rows.webhook_deliveries!.filter((d) => d.teamId === teamId)).toHaveLength(0);
  });

  it("refusing past the quota: the same error, and nothing written", async () => {
    const teamId = await team("free", (id) => [endpoint(id, ["*"])]);
    const periodStart = billingPeriod(clock.now()).start;
    for (const db of [hand.db, general.db]) {
      await db.insert(usageCounters).values({ teamId, periodStart, metric: "evals_mo", count: 5 });
    }
    const [a, b] = await createOnBoth(teamId);
    expect(a.status).toBe("rejected");
    const [errA, errB] = [a, b].map((o) => (o as PromiseRejectedResult).reason as ApiError);
    expect(errA).toBeInstanceOf(ApiError);
    expect(errA?.code).toBe("quota_exceeded");
    expect({ ...errA, message: errA?.message }).toEqual({ ...errB, message: errB?.message });
    const rows = await expectSameRows();
    expect(rows.evaluations!.filter((e) => e.teamId === teamId)).toHaveLength(0);
    expect(rows.usage_counters!.find((u) => u.teamId === teamId)?.count).toBe(5);
  });

  it("counting past the quota under the log policy", async () => {
    const teamId = await team("free", (id) => [endpoint(id, ["evaluation.created"])]);
    const periodStart = billingPeriod(clock.now()).start;
    for (const db of [hand.db, general.db]) {
      await db.insert(usageCounters).values({ teamId, periodStart, metric: "evals_mo", count: 5 });
    }
    policy = { mode: "log", requestId: "req_log", route: "POST /evaluations" };
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const [a, b] = await createOnBoth(teamId, { limits: policy });
      expect(a.status).toBe("fulfilled");
      expect(a).toEqual(b);
      // Each path logs the count past the quota once.
      expect(warn.mock.calls.filter(([line]) => String(line).includes('"limit_exceeded"'))).toHaveLength(2);
    } finally {
      warn.mockRestore();
      policy = undefined;
    }
    const rows = await expectSameRows();
    expect(rows.usage_counters!.find((u) => u.teamId === teamId)?.count).toBe(6);
  });
});
