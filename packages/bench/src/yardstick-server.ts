/**
 * The yardstick: a raw node:http + postgres.js server (no framework, no validation library) that answers the four
 * benchmarked routes with the bytes Rubricon answers (same JSON fields in the same order, same comparison counts
 * and template names, the same X-Request-Id, Service-Version, X-Content-Type-Options and X-RateLimit-* headers),
 * doing the least a raw server needs for that. Per request: one API-key lookup (last use written at most once a minute, as Rubricon
 * writes it) and a hit on the team's per-minute window, whose limits are cached for 10 s as Rubricon's meter cache
 * caches them. Then a read is ONE statement: the evaluation, or the page, with its comparison counts and template
 * names (and, after a cursor, whether the cursor names an item). A create is ONE statement too, atomic on its
 * own: the evaluation, its comparisons, the event, its webhook deliveries (the outbox) and the monthly quota
 * count, the same rows Rubricon writes in its transaction of several round trips. `check-responses.ts` holds the
 * yardstick to Rubricon's answers before every bench run.
 * Run directly (`tsx src/yardstick-server.ts`) with DATABASE_URL, PORT and BASE_URL; it prints "listening <url>".
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { MemorySlidingWindow, RedisSlidingWindow, type SlidingWindow } from "@rubricon/api";
import {
  API_KEY_PREFIX,
  API_VERSION,
  PLAN_LIMITS,
  type Plan,
  type RequiredScope,
  scopeGrants,
} from "@rubricon/contracts";
import { limitsFor } from "@rubricon/core";
import { newId } from "@rubricon/db";
import postgres from "postgres";

type Row = unknown[];
type Sql = postgres.Sql;

interface Key {
  teamId: string;
  userId: string;
  scopes: string[];
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const RPM_WINDOW_MS = 60_000;
const METER_TTL_MS = 10_000;
const LAST_USED_GRANULARITY_MS = 60_000;
/** Stands for the template list in a create's event payload until the statement fills in the names it reads. */
const TEMPLATES_MARK = "\u0000templates";
const TEMPLATES_MARK_JSON = `"templates":${JSON.stringify(TEMPLATES_MARK)}`;
/** Each plan's monthly evaluation quota (null: unlimited), for the create statement to apply in SQL. */
const EVALS_QUOTA = JSON.stringify(
  Object.fromEntries(Object.entries(PLAN_LIMITS).map(([plan, limits]) => [plan, limits.evals_mo])),
);

const iso = (d: unknown) => (d instanceof Date ? d.toISOString() : null);

/**
 * The columns an evaluation is shown from, read as arrays (`.values()`) rather than as one object per row: a raw
 * server reads what it shows by position, without naming every column of every row.
 */
const COLUMNS = [
  "id",
  "team_id",
  "created_by",
  "name",
  "description",
  "type",
  "status",
  "share_access",
  "share_token",
  "allow_multiple_ratings",
  "evaluation_method",
  "instructions",
  "scenario",
  "selected_dimension_ids",
  "selected_autousers",
  "rating_deadline",
  "target_ratings_per_comparison",
  "collect_rater_name",
  "collect_rater_email",
  "ended_at",
  "created_at",
  "updated_at",
] as const;
const I = Object.fromEntries(COLUMNS.map((c, i) => [c, i])) as Record<(typeof COLUMNS)[number], number>;
/** After the columns: the comparison count, the template refs, and (after a cursor) whether the cursor is known. */
const COUNT = COLUMNS.length;
const REFS = COUNT + 1;
const CURSOR_KNOWN = COUNT + 2;
const columnsOf = (alias: string) => COLUMNS.map((c) => `${alias}.${c}`).join(", ");

/** Template triples as Rubricon shows them: in the order of `selectedDimensionIds`, unknown ids left out. */
function templatesOf(ids: string[], refs: [string, string, number][]) {
  return ids.flatMap((id) => {
    const t = refs.find((r) => r[0] === id);
    return t ? [{ id, name: t[1], version: t[2] }] : [];
  });
}

/** Rubricon's Evaluation object, field for field and in its order, from a row of `COLUMNS`. */
function toEvaluation(row: Row, comparisonCount: number, templates: unknown, baseUrl: string) {
  const id = row[I.id] as string;
  const e = `${baseUrl}/evaluations/${id}`;
  return {
    id,
    object: "evaluation",
    teamId: row[I.team_id],
    name: row[I.name],
    description: row[I.description],
    type: row[I.type],
    status: row[I.status],
    shareAccess: row[I.share_access],
    shareToken: row[I.share_token],
    allowMultipleRatings: row[I.allow_multiple_ratings],
    evaluationMethod: row[I.evaluation_method],
    instructions: row[I.instructions],
    scenario: row[I.scenario],
    selectedDimensionIds: row[I.selected_dimension_ids],
    templates,
    selectedAutousers: row[I.selected_autousers],
    comparisonCount,
    ratingWindow: {
      closesAt: iso(row[I.rating_deadline]),
      targetRatingsPerComparison: row[I.target_ratings_per_comparison],
    },
    collectRaterName: row[I.collect_rater_name],
    collectRaterEmail: row[I.collect_rater_email],
    endedAt: iso(row[I.ended_at]),
    createdBy: row[I.created_by],
    createdAt: iso(row[I.created_at]),
    updatedAt: iso(row[I.updated_at]),
    links: {
      preview: `${e}/preview`,
      review: `${e}/review`,
      edit: `${e}/edit`,
      results: `${e}/results`,
      share: `${baseUrl}/share/${row[I.share_token]}`,
    },
  };
}

function fromRow(row: Row, baseUrl: string) {
  return toEvaluation(
    row,
    row[COUNT] as number,
    templatesOf(row[I.selected_dimension_ids] as string[], row[REFS] as [string, string, number][]),
    baseUrl,
  );
}

/** RFC 9562 uuid v7, made as Rubricon makes its request ids. */
function uuidv7(now: number): string {
  const time = now.toString(16).padStart(12, "0");
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randomUUID().slice(15)}`;
}

function peerAddress(req: IncomingMessage): string | null {
  const a = req.socket.remoteAddress;
  if (!a) return null;
  return (a.toLowerCase().startsWith("::ffff:") && a.includes(".") ? a.slice(7) : a).toLowerCase();
}

export interface Yardstick {
  url: string;
  close(): Promise<void>;
}

export async function startYardstick(opts: {
  databaseUrl: string;
  port?: number;
  /** Origin of the links in responses; give it Rubricon's BASE_URL for byte-equal answers. */
  baseUrl?: string;
  redisUrl?: string;
  redisKeyPrefix?: string;
}): Promise<Yardstick> {
  const sql: Sql = postgres(opts.databaseUrl, { max: 10, onnotice: () => {} });
  // The same kind of window Rubricon counts in: in memory, or Redis when it has a REDIS_URL.
  const window: SlidingWindow = opts.redisUrl
    ? await RedisSlidingWindow.connect(opts.redisUrl, opts.redisKeyPrefix ?? "rubricon:")
    : new MemorySlidingWindow();
  const meters = new Map<string, { rpm: number; expiresAt: number }>();
  const lastWritten = new Map<string, number>();
  let baseUrl = opts.baseUrl ?? "";

  async function authenticate(req: IncomingMessage, now: Date): Promise<Key> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    if (!match) throw new HttpError(401, "authentication_required", "No API key provided.");
    if (!match[1]!.startsWith(API_KEY_PREFIX))
      throw new HttpError(401, "invalid_api_key", "Invalid API key provided.");
    const hash = createHash("sha256").update(match[1]!).digest("hex");
    const [key] = await sql`select id, team_id, user_id, scopes, revoked_at, expires_at, last_used_at,
      last_used_ip from api_keys where key_hash = ${hash} limit 1`;
    if (!key) throw new HttpError(401, "invalid_api_key", "Invalid API key provided.");
    if (key.revoked_at) throw new HttpError(401, "api_key_revoked", "This API key has been revoked.");
    if (key.expires_at && (key.expires_at as Date).getTime() <= now.getTime())
      throw new HttpError(401, "api_key_expired", "This API key has expired.");
    const t = now.getTime();
    const ip = peerAddress(req);
    const id = key.id as string;
    const last = Math.max(lastWritten.get(id) ?? 0, (key.last_used_at as Date | null)?.getTime() ?? 0);
    if (t - last >= LAST_USED_GRANULARITY_MS || key.last_used_ip !== ip) {
      lastWritten.set(id, t);
      await sql`update api_keys set last_used_at = ${now}, last_used_ip = ${ip} where id = ${id}
        and (last_used_at is null or last_used_at < ${new Date(t - LAST_USED_GRANULARITY_MS)}
          or last_used_ip is distinct from ${ip})`;
    }
    return { teamId: key.team_id as string, userId: key.user_id as string, scopes: key.scopes as string[] };
  }

  async function rpmOf(teamId: string, nowMs: number): Promise<number> {
    const hit = meters.get(teamId);
    if (hit && hit.expiresAt > nowMs) return hit.rpm;
    const [team] = await sql`select plan, custom_limits from teams where id = ${teamId} limit 1`;
    const rpm = team
      ? limitsFor({ plan: team.plan as Plan, customLimits: team.custom_limits as Record<string, number> }).rpm
      : PLAN_LIMITS.free.rpm;
    meters.set(teamId, { rpm, expiresAt: nowMs + METER_TTL_MS });
    return rpm;
  }

  async function meter(key: Key, requestId: string, nowMs: number, headers: Record<string, string>) {
    const state = await window.hit({
      key: `rpm:team:${key.teamId}`,
      limit: await rpmOf(key.teamId, nowMs),
      windowMs: RPM_WINDOW_MS,
      nowMs,
      id: requestId,
    });
    headers["X-RateLimit-Limit"] = String(state.limit);
    headers["X-RateLimit-Remaining"] = String(state.remaining);
    headers["X-RateLimit-Reset"] = String(Math.ceil(state.resetMs / 1000));
    if (!state.allowed) {
      headers["Retry-After"] = String(Math.max(1, Math.ceil((state.resetMs - nowMs) / 1000)));
      throw new HttpError(429, "rate_limit_exceeded", "Too many requests.");
    }
  }

  function requireScope(key: Key, scope: RequiredScope): void {
    if (!scopeGrants(key.scopes, scope))
      throw new HttpError(
        403,
        "missing_required_scope",
        `This credential lacks the required scope \`${scope}\`.`,
      );
  }

  async function getOne(key: Key, id: string) {
    const [row] = await sql`select ${sql.unsafe(columnsOf("e"))},
        (select count(*)::int from comparisons c where c.evaluation_id = e.id) as comparison_count,
        (select coalesce(json_agg(json_build_array(t.id, t.name, t.version)), '[]'::json)
          from templates t where t.id = any(e.selected_dimension_ids)) as template_refs
      from evaluations e where e.id = ${id} and e.team_id = ${key.teamId}`.values();
    if (!row) throw new HttpError(404, "evaluation_not_found", `No such evaluation: ${id}.`);
    return fromRow(row, baseUrl);
  }

  async function list(key: Key, query: URLSearchParams) {
    const limitParam = query.get("limit");
    const limit = limitParam === null ? 20 : Number(limitParam);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      throw new HttpError(400, "parameter_invalid", "`limit` must be a whole number from 1 to 100.");
    const after = query.get("starting_after");
    // Counts are grouped over the page's ids, and template names read per row, as Rubricon reads them.
    const rows = after
      ? await sql`with cursor as (
            select coalesce(
              (select updated_at from evaluations where id = ${after} and team_id = ${key.teamId}),
              (select sort_updated_at from list_tombstones where id = ${after} and resource = 'evaluation')) as k
          ), page as (
            select * from evaluations where team_id = ${key.teamId}
              and (updated_at, id) < ((select k from cursor), ${after})
            order by updated_at desc, id desc limit ${limit + 1}
          ), counts as (
            select evaluation_id, count(*)::int as n from comparisons
            where evaluation_id in (select id from page) group by evaluation_id
          )
          select ${sql.unsafe(columnsOf("page"))}, coalesce(counts.n, 0) as comparison_count,
            (select coalesce(json_agg(json_build_array(t.id, t.name, t.version)), '[]'::json)
              from templates t where t.id = any(page.selected_dimension_ids)) as template_refs,
            cursor.k is not null as cursor_known
          from cursor left join page on true left join counts on counts.evaluation_id = page.id
          order by page.updated_at desc, page.id desc`.values()
      : await sql`with page as (
            select * from evaluations where team_id = ${key.teamId}
            order by updated_at desc, id desc limit ${limit + 1}
          ), counts as (
            select evaluation_id, count(*)::int as n from comparisons
            where evaluation_id in (select id from page) group by evaluation_id
          )
          select ${sql.unsafe(columnsOf("page"))}, coalesce(counts.n, 0) as comparison_count,
            (select coalesce(json_agg(json_build_array(t.id, t.name, t.version)), '[]'::json)
              from templates t where t.id = any(page.selected_dimension_ids)) as template_refs
          from page left join counts on counts.evaluation_id = page.id
          order by page.updated_at desc, page.id desc`.values();
    let found: Row[] = rows;
    if (after) {
      // After a cursor the statement answers one row even for an empty page, saying whether the cursor is known.
      if (!rows[0]?.[CURSOR_KNOWN])
        throw new HttpError(400, "invalid_cursor", `No item with id '${after}' in this list.`);
      if (rows[0][I.id] === null) found = [];
    }
    const data = found.slice(0, limit).map((r) => fromRow(r, baseUrl));
    const last = data.at(-1);
    return {
      object: "list",
      data,
      has_more: found.length > limit,
      ...(last ? { next_cursor: last.id } : {}),
    };
  }

  async function create(req: IncomingMessage, key: Key, requestId: string, now: Date) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const input = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      name?: unknown;
      type?: unknown;
      designUrls?: { url: string; label?: string }[];
    };
    if (typeof input.name !== "string" || input.name.length === 0 || input.type !== "SSE")
      throw new HttpError(400, "parameter_invalid", "This server takes SSE evaluations with a name.");
    const designs = input.designUrls ?? [];
    const selected = ["overall"];
    const fields: Record<(typeof COLUMNS)[number], unknown> = {
      id: newId("evaluation"),
      team_id: key.teamId,
      created_by: key.userId,
      name: input.name,
      description: null,
      type: "SSE",
      status: "Draft",
      share_access: "TEAM_ONLY",
      share_token: randomBytes(18).toString("base64url"),
      allow_multiple_ratings: false,
      evaluation_method: "manual",
      instructions: null,
      scenario: null,
      selected_dimension_ids: selected,
      selected_autousers: [],
      rating_deadline: null,
      target_ratings_per_comparison: null,
      collect_rater_name: false,
      collect_rater_email: false,
      ended_at: null,
      created_at: now,
      updated_at: now,
    };
    const row: Row = COLUMNS.map((c) => fields[c]);
    const comparisons = designs.map((d, position) => ({
      id: newId("comparison"),
      name: d.label ?? null,
      position,
      stimulus: { kind: "single", url: d.url, fileId: null, stimulusType: "URL" },
    }));
    const eventId = newId("event");
    // The event carries the evaluation as the API shows it, with three of its links, serialised once here; the
    // statement splices in the template names it reads.
    const shown = toEvaluation(row, designs.length, TEMPLATES_MARK, baseUrl);
    const { preview, review, results } = shown.links;
    const payload = JSON.stringify({
      id: eventId,
      object: "event",
      type: "evaluation.created",
      api_version: API_VERSION,
      created: Math.floor(now.getTime() / 1000),
      team_id: key.teamId,
      data: { object: { ...shown, links: { preview, review, results } } },
      request: { id: requestId, idempotency_key: null },
    });
    const periodStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const [done] = await sql`with team as (
        select id, case when plan = 'enterprise' and jsonb_typeof(custom_limits -> 'evaluations') = 'number'
          then (custom_limits ->> 'evaluations')::int else (${EVALS_QUOTA}::text::jsonb ->> plan)::int end as quota
        from teams where id = ${key.teamId}
      ), evaluation as (
        insert into evaluations (id, team_id, created_by, name, type, status, share_access, share_token,
          allow_multiple_ratings, evaluation_method, selected_dimension_ids, selected_autousers,
          collect_rater_name, collect_rater_email, created_at, updated_at)
        select ${fields.id as string}, team.id, ${key.userId}, ${input.name}, 'SSE', 'Draft', 'TEAM_ONLY',
          ${fields.share_token as string}, false, 'manual', ${selected}::text[], '[]'::jsonb, false, false,
          ${now}, ${now}
        from team
        returning id
      ), comparison as (
        insert into comparisons (id, evaluation_id, name, position, stimulus, created_at, updated_at)
        select c.id, evaluation.id, c.name, c.position, c.stimulus, ${now}, ${now}
        from evaluation, jsonb_to_recordset(${JSON.stringify(comparisons)}::text::jsonb)
          as c(id text, name text, position int, stimulus jsonb)
      ), refs as (
        select coalesce('[' || string_agg('{"id":' || to_json(t.id)::text || ',"name":' || to_json(t.name)::text
          || ',"version":' || t.version::text || '}', ',' order by s.n) || ']', '[]') as json
        from unnest(${selected}::text[]) with ordinality as s(id, n) join templates t on t.id = s.id
      ), event as (
        select replace(${payload}::text, ${TEMPLATES_MARK_JSON}::text, '"templates":' || refs.json) as payload
        from refs
      ), logged as (
        insert into events (id, team_id, type, api_version, object_id, object, request_id, idempotency_key,
          payload, created_at)
        select ${eventId}, team.id, 'evaluation.created', ${API_VERSION}, evaluation.id,
          event.payload::jsonb -> 'data' -> 'object', ${requestId}, null, event.payload, ${now}
        from team, evaluation, event
      ), outbox as (
        -- Delivery ids are drawn here, as the number of subscribed endpoints is known only here.
        insert into webhook_deliveries (id, endpoint_id, team_id, event_id, event_type, next_attempt_at,
          created_at, updated_at)
        select 'whd_' || left(replace(gen_random_uuid()::text, '-', ''), 24), w.id, team.id, ${eventId},
          'evaluation.created', ${now}, ${now}, ${now}
        from team, evaluation, webhook_endpoints w
        where w.team_id = team.id and w.status = 'enabled'
          and w.enabled_events && array['*', 'evaluation.created']::text[]
      ), usage as (
        insert into usage_counters (team_id, period_start, metric, count)
        select team.id, ${periodStart}, 'evals_mo', 1 from team, evaluation
        on conflict (team_id, period_start, metric, shard) do update set count = usage_counters.count + 1
          where (select quota from team) is null or usage_counters.count + 1 <= (select quota from team)
        returning count
      )
      select refs.json as templates,
        -- Past the quota nothing may stay: an error aborts the whole statement (the cast fails at run time only).
        case when usage.count is null or usage.count > coalesce(team.quota, usage.count)
          then ('quota_exceeded for ' || team.id)::int end as refused
      from team cross join refs left join usage on true`;
    if (!done) throw new HttpError(404, "team_not_found", "The credential's team no longer exists.");
    return { ...shown, templates: JSON.parse(done.templates as string) };
  }

  async function route(
    req: IncomingMessage,
    requestId: string,
    now: Date,
    headers: Record<string, string>,
  ): Promise<[number, unknown]> {
    const url = new URL(req.url ?? "/", "http://yardstick");
    const one = /^\/api\/v1\/evaluations\/([^/]+)$/.exec(url.pathname);
    const isList = url.pathname === "/api/v1/evaluations";
    if (!(one && req.method === "GET") && !(isList && (req.method === "GET" || req.method === "POST")))
      throw new HttpError(404, "route_not_found", "Unrecognized request URL.");
    const key = await authenticate(req, now);
    await meter(key, requestId, now.getTime(), headers);
    if (req.method === "POST") {
      requireScope(key, "evaluations:write");
      return [201, await create(req, key, requestId, now)];
    }
    requireScope(key, "evaluations:read");
    if (one) return [200, await getOne(key, decodeURIComponent(one[1]!))];
    return [200, await list(key, url.searchParams)];
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const now = new Date();
    const requestId = uuidv7(now.getTime());
    const headers: Record<string, string> = {
      "X-Request-Id": requestId,
      "Service-Version": API_VERSION,
      "X-Content-Type-Options": "nosniff",
    };
    route(req, requestId, now, headers)
      .then(([status, body]) => {
        res.writeHead(status, { ...headers, "Content-Type": "application/json; charset=utf-8" });
        res.end(JSON.stringify(body));
      })
      .catch((err: unknown) => {
        let error = err instanceof HttpError ? err : null;
        if (!error && err instanceof Error && err.message.includes("quota_exceeded"))
          error = new HttpError(429, "quota_exceeded", "This team has used its evaluations for this period.");
        if (!error) console.error(err);
        const status = error?.status ?? 500;
        res.writeHead(status, { ...headers, "Content-Type": "application/json; charset=utf-8" });
        res.end(
          JSON.stringify({
            error: {
              message: error?.message ?? "Something went wrong.",
              code: error?.code ?? "internal_error",
              request_id: requestId,
            },
          }),
        );
      });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  baseUrl ||= url;
  return {
    url,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([sql.end({ timeout: 5 }), window.close()]);
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error("DATABASE_URL is required");
  const yardstick = await startYardstick({
    databaseUrl,
    port: Number(process.env.PORT ?? 0),
    baseUrl: process.env.BASE_URL,
    redisUrl: process.env.REDIS_URL,
    redisKeyPrefix: process.env.REDIS_KEY_PREFIX,
  });
  process.stdout.write(`listening ${yardstick.url}\n`);
  const stop = () => void yardstick.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
