/**
 * The yardstick: the least a server can do to answer the four benchmarked routes with the same SQL per request
 * (node:http and postgres.js, no framework, no validation library). Rubricon's throughput is judged against it.
 * Run directly (`tsx src/yardstick-server.ts`) with DATABASE_URL, PORT and BASE_URL; it prints "listening <url>".
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { API_VERSION } from "@rubricon/contracts";
import { newId } from "@rubricon/db";
import postgres from "postgres";

type Row = Record<string, unknown>;
type Sql = postgres.Sql;

interface Key {
  id: string;
  teamId: string;
  userId: string;
  scopes: string[];
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

const iso = (d: unknown) => (d instanceof Date ? d.toISOString() : d);

function toEvaluation(row: Row, comparisonCount: number, baseUrl: string, templates: Map<string, Row>) {
  const e = `${baseUrl}/evaluations/${row.id}`;
  return {
    id: row.id,
    object: "evaluation",
    teamId: row.team_id,
    name: row.name,
    description: row.description,
    type: row.type,
    status: row.status,
    shareAccess: row.share_access,
    shareToken: row.share_token,
    allowMultipleRatings: row.allow_multiple_ratings,
    evaluationMethod: row.evaluation_method,
    instructions: row.instructions,
    scenario: row.scenario,
    selectedDimensionIds: row.selected_dimension_ids,
    ...(templates.size > 0
      ? {
          templates: (row.selected_dimension_ids as string[]).map((id) => ({
            id,
            ...(templates.get(id) ?? {}),
          })),
        }
      : {}),
    selectedAutousers: row.selected_autousers,
    comparisonCount,
    createdBy: row.created_by,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    links: {
      preview: `${e}/preview`,
      review: `${e}/review`,
      edit: `${e}/edit`,
      results: `${e}/results`,
      share: `${baseUrl}/share/${row.share_token}`,
    },
  };
}

export interface Yardstick {
  url: string;
  close(): Promise<void>;
}

export async function startYardstick(opts: {
  databaseUrl: string;
  port?: number;
  baseUrl?: string;
}): Promise<Yardstick> {
  const sql: Sql = postgres(opts.databaseUrl, { max: 10, onnotice: () => {} });
  // Newer schemas resolve template names per evaluation; do the same query when the table is there.
  const [reg] = await sql`select to_regclass('templates') is not null as present`;
  const hasTemplates = Boolean(reg?.present);
  let baseUrl = opts.baseUrl ?? "";

  async function authenticate(req: IncomingMessage, scope: string): Promise<Key> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    if (!match) throw new HttpError(401, "authentication_required");
    const hash = createHash("sha256").update(match[1]!).digest("hex");
    const [row] = await sql`select * from api_keys where key_hash = ${hash} limit 1`;
    if (!row || row.revoked_at || (row.expires_at && (row.expires_at as Date) <= new Date()))
      throw new HttpError(401, "invalid_api_key");
    const scopes = row.scopes as string[];
    const family = scope.slice(0, scope.indexOf(":"));
    if (!scopes.includes(scope) && !scopes.includes(`${family}:*`) && !scopes.includes("*"))
      throw new HttpError(403, "insufficient_scope");
    return {
      id: row.id as string,
      teamId: row.team_id as string,
      userId: row.user_id as string,
      scopes,
    };
  }

  async function membership(db: Sql, key: Key, teamId: string): Promise<boolean> {
    if (teamId !== key.teamId) return false;
    const [row] = await db`select t.id, m.role from team_members m join teams t on t.id = m.team_id
      where m.team_id = ${teamId} and m.user_id = ${key.userId} limit 1`;
    if (row) return true;
    const [team] = await db`select id from teams where id = ${teamId} limit 1`;
    return Boolean(team);
  }

  async function counts(db: Sql, ids: string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows =
      await db`select evaluation_id, count(*)::int as n from comparisons where evaluation_id = any(${ids}) group by evaluation_id`;
    return new Map(rows.map((r) => [r.evaluation_id as string, r.n as number]));
  }

  async function templateRefs(db: Sql, rows: Row[]): Promise<Map<string, Row>> {
    if (!hasTemplates) return new Map();
    const ids = [...new Set(rows.flatMap((r) => r.selected_dimension_ids as string[]))];
    if (ids.length === 0) return new Map();
    const found = await db`select id, name, version from templates where id = any(${ids})`;
    return new Map(found.map((t) => [t.id as string, { name: t.name, version: t.version }]));
  }

  async function getOne(req: IncomingMessage, id: string) {
    const key = await authenticate(req, "evaluations:read");
    const [row] = await sql`select * from evaluations where id = ${id} limit 1`;
    if (!row || !(await membership(sql, key, row.team_id as string)))
      throw new HttpError(404, "evaluation_not_found");
    const n = await counts(sql, [id]);
    return toEvaluation(row, n.get(id) ?? 0, baseUrl, await templateRefs(sql, [row]));
  }

  async function list(req: IncomingMessage, query: URLSearchParams) {
    const key = await authenticate(req, "evaluations:read");
    const limit = Math.min(100, Math.max(1, Number(query.get("limit") ?? 20) || 20));
    const after = query.get("starting_after");
    let rows: Row[];
    if (after) {
      const sortKey = sql`coalesce((select updated_at from evaluations where id = ${after} and team_id = ${key.teamId}),
        (select sort_updated_at from list_tombstones where id = ${after} and resource = 'evaluation'))`;
      rows = await sql`select * from evaluations where team_id = ${key.teamId}
        and (updated_at, id) < (${sortKey}, ${after}) order by updated_at desc, id desc limit ${limit + 1}`;
      // As Rubricon does: only an empty page needs telling "past the end" from "no such item".
      if (rows.length === 0) {
        const [found] = await sql`select ${sortKey} as k`;
        if (!found || found.k === null) throw new HttpError(400, "invalid_cursor");
      }
    } else {
      rows = await sql`select * from evaluations where team_id = ${key.teamId}
        order by updated_at desc, id desc limit ${limit + 1}`;
    }
    const page = rows.slice(0, limit);
    const n = await counts(
      sql,
      page.map((r) => r.id as string),
    );
    const refs = await templateRefs(sql, page);
    const data = page.map((r) => toEvaluation(r, n.get(r.id as string) ?? 0, baseUrl, refs));
    const last = data.at(-1);
    return {
      object: "list",
      data,
      has_more: rows.length > limit,
      ...(last ? { next_cursor: last.id } : {}),
    };
  }

  async function create(req: IncomingMessage) {
    const key = await authenticate(req, "evaluations:write");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const input = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      name?: string;
      type?: string;
      designUrls?: { url: string; label?: string }[];
    };
    if (typeof input.name !== "string" || input.type !== "SSE") throw new HttpError(400, "parameter_invalid");
    if (!(await membership(sql, key, key.teamId))) throw new HttpError(404, "team_not_found");
    const designs = input.designUrls ?? [];
    return sql.begin(async (tx) => {
      const now = new Date();
      const [row] =
        await tx`insert into evaluations (id, team_id, created_by, name, type, status, share_access, share_token,
          allow_multiple_ratings, evaluation_method, selected_dimension_ids, selected_autousers, created_at, updated_at)
        values (${newId("evaluation")}, ${key.teamId}, ${key.userId}, ${input.name!}, 'SSE', 'Draft', 'TEAM_ONLY',
          ${randomBytes(18).toString("base64url")}, false, 'manual', ${["overall"]}, '[]'::jsonb, ${now}, ${now})
        returning *`;
      if (designs.length > 0) {
        const values = designs.map((d, position) => ({
          id: newId("comparison"),
          evaluation_id: row!.id as string,
          name: d.label ?? null,
          position,
          stimulus: tx.json({
            kind: "single",
            url: d.url,
            fileId: null,
            stimulusType: "URL",
          }),
          created_at: now,
          updated_at: now,
        }));
        await tx`insert into comparisons ${tx(values)}`;
      }
      const evaluation = toEvaluation(
        row!,
        designs.length,
        baseUrl,
        await templateRefs(tx as unknown as Sql, [row!]),
      );
      // Beside the row, the contract asks a create to find the webhook endpoints its event goes to (the outbox)
      // and to count it against the monthly quota (last), as Rubricon does in the same transaction.
      await tx`select id from webhook_endpoints where team_id = ${key.teamId} and status = 'enabled'
        and enabled_events && array['*', 'evaluation.created']::text[]`;
      await tx`insert into events (id, team_id, type, api_version, object_id, object, request_id, idempotency_key, created_at)
        values (${newId("event")}, ${key.teamId}, 'evaluation.created', ${API_VERSION}, ${row!.id as string},
          ${tx.json(evaluation as unknown as postgres.JSONValue)}, null, null, ${now})`;
      await tx`insert into usage_counters (team_id, period_start, metric, count)
        values (${key.teamId}, ${new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))}, 'evals_mo', 1)
        on conflict (team_id, period_start, metric) do update set count = usage_counters.count + 1`;
      return evaluation;
    });
  }

  async function route(req: IncomingMessage): Promise<[number, unknown]> {
    const url = new URL(req.url ?? "/", "http://yardstick");
    const one = /^\/api\/v1\/evaluations\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && one) return [200, await getOne(req, decodeURIComponent(one[1]!))];
    if (url.pathname === "/api/v1/evaluations") {
      if (req.method === "GET") return [200, await list(req, url.searchParams)];
      if (req.method === "POST") return [201, await create(req)];
    }
    throw new HttpError(404, "not_found");
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    route(req)
      .then(([status, body]) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      })
      .catch((err: unknown) => {
        const status = err instanceof HttpError ? err.status : 500;
        if (status === 500) console.error(err);
        res.writeHead(status, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            error: {
              code: err instanceof HttpError ? err.code : "internal_error",
            },
          }),
        );
      });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  baseUrl ||= url;
  return {
    url,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sql.end({ timeout: 5 });
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
  });
  process.stdout.write(`listening ${yardstick.url}\n`);
  const stop = () => void yardstick.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
