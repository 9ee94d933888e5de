import { API_VERSION } from "@rubricon/contracts";
import {
  comparisons,
  type DbOrTx,
  evaluations,
  events,
  hotStatement,
  newId,
  type Params,
  type StimulusRow,
  templates,
  usageCounters,
  webhookDeliveries,
  webhookEndpoints,
} from "@rubricon/db";
import { getTableColumns, type Placeholder, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { CoreContext } from "../../kernel";
import { settleUsage, type UsageTerms } from "../../platform";
import type { EvaluationRow } from "./serialize";

const EVENT_TYPE = "evaluation.created";

/** A comparison of the new evaluation, as the statement inserts it (its times are the evaluation's). */
export interface NewComparison {
  id: string;
  name: string | null;
  position: number;
  stimulus: StimulusRow;
}

interface CreateValues extends EvaluationRow {
  /** JSON array of `NewComparison`. */
  comparisonsJson: string;
  eventId: string;
  requestId: string | null;
  idempotencyKey: string | null;
  /** The event's payload is `payloadHead || <template refs as JSON> || payloadTail`. */
  payloadHead: string;
  payloadTail: string;
  /** Ids for the webhook deliveries; the statement writes nothing when there are more endpoints than ids. */
  deliveryIds: string[];
  periodStart: Date;
  /** The total the quota count must stay within, or null to count unconditionally. */
  within: number | null;
}

const identifiers = (...columns: PgColumn[]) =>
  sql.join(
    columns.map((c) => sql.identifier(c.name)),
    sql`, `,
  );

/** A value bound to a column: encoded by it, and cast to its type (a select list gives parameters no type). */
function bound(column: PgColumn, value: Placeholder): SQL {
  return sql`${sql.param(value, column)}::${sql.raw(column.getSQLType())}`;
}

/**
 * The whole create in one statement, atomic on its own: the quota count, the evaluation, its comparisons, the
 * `evaluation.created` event and one webhook delivery per subscribed endpoint, with the template names the
 * evaluation shows. The count comes first and everything else is written only from its returned row, so a create
 * past the quota writes nothing (`used` is null). Delivery ids are drawn by the caller, who cannot know how many
 * endpoints are subscribed: with more endpoints than ids nothing is written either, and `endpoints` says how many
 * to draw. Rubricon's earlier create took seven round trips (a transaction of five statements) for these rows.
 */
const createEvaluationStatement = hotStatement("create_evaluation", (db, $: Params<CreateValues>) => {
  const e = evaluations;
  const w = webhookEndpoints;
  const subscribed = sql`select ${w.id} from ${w} where ${w.teamId} = ${$.teamId} and ${w.status} = 'enabled'
    and ${w.enabledEvents} && array['*', ${EVENT_TYPE}]::text[]`;
  const gate = db
    .$with("gate", { endpoints: sql<number>`endpoints`.as("endpoints") })
    .as(sql`select count(*)::int as endpoints from (${subscribed}) s`);
  const u = usageCounters;
  const usage = db.$with("usage", { count: sql<number>`count`.as("count") }).as(
    sql`insert into ${u} (${identifiers(u.teamId, u.periodStart, u.metric, u.count)})
      select ${$.teamId}, ${bound(u.periodStart, $.periodStart)}, 'evals_mo', 1 from gate
      where gate.endpoints <= cardinality(${$.deliveryIds}::text[])
      on conflict (${identifiers(u.teamId, u.periodStart, u.metric, u.shard)}) do update set ${sql.identifier(u.count.name)} = ${u.count} + 1
        where ${$.within}::int is null or ${u.count} + 1 <= ${$.within}::int
      returning ${u.count}`,
  );
  const columns = Object.entries(getTableColumns(e)) as [keyof EvaluationRow, PgColumn][];
  const evaluation = db.$with("evaluation", { id: sql<string>`id`.as("id") }).as(
    sql`insert into ${e} (${identifiers(...columns.map(([, c]) => c))})
      select ${sql.join(
        columns.map(([key, column]) => bound(column, $[key])),
        sql`, `,
      )} from usage
      returning ${e.id}`,
  );
  const c = comparisons;
  const comparison = db.$with("comparison", {}).as(
    sql`insert into ${c} (${identifiers(c.id, c.evaluationId, c.name, c.position, c.stimulus, c.createdAt, c.updatedAt)})
      select n.id, evaluation.id, n.name, n.position, n.stimulus, ${bound(c.createdAt, $.createdAt)},
        ${bound(c.updatedAt, $.createdAt)}
      from evaluation, jsonb_to_recordset(${$.comparisonsJson}::text::jsonb)
        as n(id text, name text, position int, stimulus jsonb)`,
  );
  // Built as JSON.stringify builds `[{id, name, version}]`: Postgres escapes strings in JSON as JavaScript does.
  const t = templates;
  const refs = db.$with("refs", { json: sql<string>`json`.as("json") }).as(
    sql`select coalesce('[' || string_agg('{"id":' || to_json(${t.id})::text || ',"name":' || to_json(${t.name})::text
        || ',"version":' || ${t.version}::text || '}', ',' order by s.n) || ']', '[]') as json
      from unnest(${$.selectedDimensionIds}::text[]) with ordinality as s(id, n) join ${t} on ${t.id} = s.id`,
  );
  const ev = events;
  const logged = db.$with("logged", {}).as(
    sql`insert into ${ev} (${identifiers(ev.id, ev.teamId, ev.type, ev.apiVersion, ev.objectId, ev.object, ev.requestId, ev.idempotencyKey, ev.payload, ev.createdAt)})
      select ${$.eventId}, ${$.teamId}, ${EVENT_TYPE}, ${API_VERSION}, evaluation.id,
        p.payload::jsonb -> 'data' -> 'object', ${$.requestId}, ${$.idempotencyKey}, p.payload,
        ${bound(ev.createdAt, $.createdAt)}
      from evaluation, (select ${$.payloadHead}::text || refs.json || ${$.payloadTail}::text as payload from refs) p`,
  );
  const d = webhookDeliveries;
  const outbox = db.$with("outbox", {}).as(
    sql`insert into ${d} (${identifiers(d.id, d.endpointId, d.teamId, d.eventId, d.eventType, d.nextAttemptAt, d.createdAt, d.updatedAt)})
      select (${$.deliveryIds}::text[])[s.n], s.id, ${$.teamId}, ${$.eventId}, ${EVENT_TYPE},
        ${bound(d.nextAttemptAt, $.createdAt)}, ${bound(d.createdAt, $.createdAt)}, ${bound(d.updatedAt, $.createdAt)}
      from evaluation, (select id, row_number() over (order by id) as n from (${subscribed}) e) s`,
  );
  return db
    .with(gate, usage, evaluation, comparison, refs, logged, outbox)
    .select({
      endpoints: gate.endpoints,
      used: sql<number | null>`(select ${usage.count} from ${usage})`,
      templates: refs.json,
    })
    .from(gate)
    .crossJoin(refs);
});

/** Delivery ids drawn for a create before the number of subscribed endpoints is known; most teams have fewer. */
const DELIVERY_IDS = 2;

/** Stands for the template list in the event's payload, which the statement fills in with the names it reads. */
const TEMPLATES_MARK = "\u0000templates";
const TEMPLATES_FIELD = `"templates":${JSON.stringify(TEMPLATES_MARK)}`;

/**
 * The event's payload around its template list. The field is found by its key and the mark together: inside a
 * serialised string every quote is escaped, so no value can hold that text.
 */
function splitPayload(payload: string): { payloadHead: string; payloadTail: string } {
  const at = payload.indexOf(TEMPLATES_FIELD);
  if (at < 0 || payload.indexOf(TEMPLATES_FIELD, at + 1) >= 0)
    throw new Error("the evaluation.created payload must hold its template list once");
  return {
    payloadHead: `${payload.slice(0, at)}"templates":`,
    payloadTail: payload.slice(at + TEMPLATES_FIELD.length),
  };
}

export interface CreatedRows {
  row: EvaluationRow;
  comparisons: NewComparison[];
  /** The evaluation as its event shows it, without its templates (the statement reads them). */
  eventObject: Record<string, unknown> & { id: string };
  usage: UsageTerms;
}

/**
 * Writes a new evaluation and everything that comes with it in one statement (see `createEvaluationStatement`),
 * and answers its templates as the API shows them. Throws 429 `quota_exceeded` when the quota is spent.
 */
export async function insertCreatedEvaluation(
  db: DbOrTx,
  ctx: CoreContext,
  created: CreatedRows,
): Promise<{ id: string; name: string; version: number }[]> {
  const { row, usage } = created;
  const eventId = newId("event");
  const payload = JSON.stringify({
    id: eventId,
    object: "event",
    type: EVENT_TYPE,
    api_version: API_VERSION,
    created: Math.floor(row.createdAt.getTime() / 1000),
    team_id: row.teamId,
    data: { object: { ...created.eventObject, templates: TEMPLATES_MARK } },
    request: { id: ctx.request?.id ?? null, idempotency_key: ctx.request?.idempotencyKey ?? null },
  });
  const values: Omit<CreateValues, "deliveryIds"> = {
    ...row,
    comparisonsJson: JSON.stringify(created.comparisons),
    eventId,
    requestId: ctx.request?.id ?? null,
    idempotencyKey: ctx.request?.idempotencyKey ?? null,
    ...splitPayload(payload),
    periodStart: usage.periodStart,
    within: usage.within,
  };
  let wanted = DELIVERY_IDS;
  for (;;) {
    const deliveryIds = Array.from({ length: wanted }, () => newId("webhookDelivery"));
    const [result] = await createEvaluationStatement(db, { ...values, deliveryIds });
    if (!result) throw new Error("create_evaluation answered no row");
    // Endpoints subscribed since the count was read need more ids: the statement wrote nothing, so it runs again.
    if (result.endpoints > wanted) {
      wanted = result.endpoints;
      continue;
    }
    settleUsage(usage, result.used);
    return JSON.parse(result.templates) as { id: string; name: string; version: number }[];
  }
}
