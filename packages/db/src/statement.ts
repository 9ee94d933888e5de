import {
  createTableRelationsHelpers,
  DrizzleQueryError,
  type ExtractTablesWithRelations,
  entityKind,
  extractTablesRelationalConfig,
  getTableColumns,
  is,
  Param,
  Placeholder,
  type Query,
  SQL,
  Subquery,
  sql,
} from "drizzle-orm";
import {
  PgColumn,
  PgDatabase,
  PgDialect,
  PgPreparedQuery,
  type PgQueryResultHKT,
  PgSession,
  type PgTable,
  type PreparedQueryConfig,
  type SelectedFieldsOrdered,
} from "drizzle-orm/pg-core";
import { PostgresJsSession } from "drizzle-orm/postgres-js";
import type { Sql } from "postgres";
import { type Db, type DbOrTx, directClient, type Schema } from "./client";
import * as schema from "./schema/index";

/**
 * A statement's named values, as placeholders to build it with: `$.teamId` stands for the `teamId` value each run
 * is given. Typed by the values, so a name that is not one of them does not compile.
 */
export type Params<Values> = { readonly [K in keyof Values]-?: Placeholder<K & string, Values[K]> };

/** What `build` answers: any Drizzle query (select, insert, update, delete, set operation, relational query). */
export interface Preparable<Config extends PreparedQueryConfig> {
  prepare(name: string): PgPreparedQuery<Config>;
}

/** A hot statement: run it on the pool or on a transaction, with its values. */
export interface HotStatement<Values, Result> {
  (handle: DbOrTx, values: Values): Promise<Result>;
  /** The SQL it sends (compiled on first use). */
  readonly sql: string;
}

/**
 * The one way to run a statement on a hot path. Drizzle builds the SQL once, here, with placeholders; each run
 * only binds the values and hands the compiled SQL to the handle's driver, on the pool or on a transaction's own
 * connection. Drizzle's own prepared queries are bound to the handle they were built on, so inside a transaction
 * one would be rebuilt on every call, and building a statement costs about as much as running a hot one.
 *
 * Rows come back as the same query run through Drizzle would answer them, typed by its selection or `returning`
 * and decoded by each column (dates as `Date`, json parsed). A value bound to a column is encoded by that column,
 * except that null stays SQL NULL (a json column would otherwise store the JSON `null`).
 *
 * `name` names the statement for drivers that keep named statements; postgres.js keys its per-connection
 * statements by their text, and prepares only when the database was created with `prepareStatements`.
 *
 * @example
 * const teamById = hotStatement("team_by_id", (db, $: Params<{ id: string }>) =>
 *   db.select().from(teams).where(eq(teams.id, $.id)).limit(1),
 * );
 * const [team] = await teamById(tx, { id });
 */
export function hotStatement<Values extends object, Config extends PreparedQueryConfig>(
  name: string,
  build: (db: Db, $: Params<Values>) => Preparable<Config>,
): HotStatement<Values, Config["execute"]> {
  let compiled: Compiled<Values, Config> | undefined;
  const compile = () => {
    compiled ??= compileStatement(name, build);
    return compiled;
  };
  const run = async (handle: DbOrTx, values: Values): Promise<Config["execute"]> => {
    const statement = compiled ?? compile();
    const session = handle._.session;
    if (statement.mapRows && is(session, PostgresJsSession)) {
      return runOnPostgresJs(session as unknown as { client: Sql }, statement, values);
    }
    const query = handle._.session.prepareQuery<Config>(
      { ...statement.query, params: statement.bind(values) },
      statement.fields,
      name,
      true,
      statement.mapRows,
    );
    if (statement.joinsNotNullableMap)
      Object.assign(query, { joinsNotNullableMap: statement.joinsNotNullableMap });
    return query.execute();
  };
  return Object.defineProperty(run, "sql", {
    get: () => compile().query.sql,
    enumerable: true,
  }) as HotStatement<Values, Config["execute"]>;
}

/**
 * A statement whose rows map without Drizzle's help, on postgres.js: straight to the driver, as Drizzle's prepared
 * query would send it (same client, so the same value parsers and preparing), without the tracing spans, cache
 * lookup and per-run query object around it (about 3% of a list page's CPU). Failures are wrapped as Drizzle wraps
 * them. PGlite, used embedded and in tests, keeps Drizzle's path.
 */
async function runOnPostgresJs<Values, Config extends PreparedQueryConfig>(
  session: { client: Sql },
  statement: Compiled<Values, Config>,
  values: Values,
): Promise<Config["execute"]> {
  const { sql: text } = statement.query;
  const params = statement.bind(values);
  let rows: unknown[][];
  try {
    // biome-ignore lint/suspicious/noExplicitAny: postgres.js types parameters per client generics
    rows = await directClient(session.client)
      .unsafe(text, params as any[], { prepare: true })
      .values();
  } catch (cause) {
    throw new DrizzleQueryError(text, params, cause as Error);
  }
  return statement.mapRows!(rows);
}

/**
 * Placeholders for every column of `table`, named as its columns, to insert a whole row with: the statement's
 * values must then hold each column's value, of its type.
 */
export function rowParams<T extends PgTable>(
  table: T,
  $: Params<T["$inferSelect"]>,
): Params<T["$inferSelect"]> {
  const row: Partial<Params<T["$inferSelect"]>> = {};
  for (const key of Object.keys(getTableColumns(table)) as (keyof T["$inferSelect"])[]) row[key] = $[key];
  return row as Params<T["$inferSelect"]>;
}

interface Compiled<Values, Config extends PreparedQueryConfig> {
  query: Query;
  bind(values: Values): unknown[];
  fields: SelectedFieldsOrdered | undefined;
  mapRows: ((rows: unknown[][]) => Config["execute"]) | undefined;
  joinsNotNullableMap: Record<string, boolean> | undefined;
}

function compileStatement<Values extends object, Config extends PreparedQueryConfig>(
  name: string,
  build: (db: Db, $: Params<Values>) => Preparable<Config>,
): Compiled<Values, Config> {
  const captured = build(compilingDatabase(), placeholderProxy<Values>()).prepare(name);
  if (!(captured instanceof CapturedQuery))
    throw new Error(`hotStatement ${name}: build it on the db it is given`);
  const query = captured.getQuery();
  const binders = query.params.map(binderOf);
  const fields = captured.fields?.map(({ path, field }) =>
    path.length === 1 && is(field, PgColumn) ? { path, field: unaliased(field) } : { path, field },
  );
  return {
    query,
    bind: (values) => binders.map((bind) => bind(values, name)),
    fields,
    mapRows: captured.mapRows ?? (fields && flatRowMapper<Config["execute"]>(fields)),
    joinsNotNullableMap: captured.joinsNotNullableMap,
  };
}

interface Decoder {
  mapFromDriverValue(value: unknown): unknown;
}

/**
 * Drizzle maps each row by walking its selection and asking, per value, what kind of field decodes it: on a list
 * page of evaluations about a tenth of the request's CPU. A flat selection (every field at the top of the row,
 * which is what hot statements select) is resolved once here into one decoder per column; values decode exactly
 * as Drizzle's mapping would (null stays null, everything else through the field's decoder). Nested selections,
 * whose objects may be nulled by an outer join, keep Drizzle's mapping.
 */
function flatRowMapper<Rows>(fields: SelectedFieldsOrdered): ((rows: unknown[][]) => Rows) | undefined {
  if (fields.some(({ path }) => path.length !== 1)) return undefined;
  const keys = fields.map(({ path }) => path[0]!);
  const decoders = fields.map(({ field }) => decoderOf(field));
  const width = keys.length;
  const mapRow = (raw: unknown[]) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < width; i++) {
      const value = raw[i];
      row[keys[i]!] = value === null ? null : decoders[i]!.mapFromDriverValue(value);
    }
    return row;
  };
  return (rows) => rows.map(mapRow) as Rows;
}

/** The decoder Drizzle's row mapping picks for a selected field (SQL keeps it internal, off its types). */
function decoderOf(field: SelectedFieldsOrdered[number]["field"]): Decoder {
  const of = (expression: SQL) => (expression as SQL & { decoder: Decoder }).decoder;
  if (is(field, PgColumn)) return field;
  if (is(field, SQL)) return of(field);
  if (is(field, SQL.Aliased)) return of(field.sql);
  if (is(field, Subquery)) return of(field._.sql);
  throw new Error("hotStatement: a selected field that is neither a column, SQL nor a subquery");
}

/**
 * A column read through a subquery or CTE is a proxy naming the alias, and each proxy layer more than doubles
 * the cost of decoding a value through it (about 14 µs a row of evaluations through two, against 3 µs). A field
 * at the top of a row (not inside a nested object, where the column's table decides whether the object is null)
 * decodes the same through a plain copy of the column behind the proxies.
 */
function unaliased(column: PgColumn): PgColumn {
  return Object.create(Object.getPrototypeOf(column), Object.getOwnPropertyDescriptors(column));
}

type Binder = (values: object, statement: string) => unknown;

/** How one compiled parameter takes its value; a placeholder bound to a column goes through its encoder. */
function binderOf(param: unknown): Binder {
  if (is(param, Placeholder)) {
    const { name } = param;
    return (values, statement) => placeholderValue(values, name, statement);
  }
  if (is(param, Param) && is(param.value, Placeholder)) {
    const { name } = param.value;
    const { encoder } = param;
    return (values, statement) => {
      const value = placeholderValue(values, name, statement);
      return value === null || value === undefined ? null : encoder.mapToDriverValue(value);
    };
  }
  return () => param;
}

function placeholderValue(values: object, name: string, statement: string): unknown {
  if (!(name in values)) throw new Error(`hotStatement ${statement}: no value for placeholder "${name}"`);
  return (values as Record<string, unknown>)[name];
}

function placeholderProxy<Values>(): Params<Values> {
  const made = new Map<string, Placeholder>();
  const get = (_target: object, key: string | symbol): Placeholder | undefined => {
    if (typeof key !== "string") return undefined;
    let placeholder = made.get(key);
    if (!placeholder) {
      placeholder = sql.placeholder(key);
      made.set(key, placeholder);
    }
    return placeholder;
  };
  return new Proxy({}, { get }) as Params<Values>;
}

/** The compiled form of a query built on the compiling database: its SQL and how Drizzle maps its rows. */
class CapturedQuery<Config extends PreparedQueryConfig> extends PgPreparedQuery<Config> {
  static override readonly [entityKind]: string = "RubriconCapturedQuery";
  /** Set by Drizzle's select on the query it prepares: which joined tables may be absent from a row. */
  joinsNotNullableMap: Record<string, boolean> | undefined;

  constructor(
    query: Query,
    readonly fields: SelectedFieldsOrdered | undefined,
    readonly mapRows: ((rows: unknown[][]) => Config["execute"]) | undefined,
  ) {
    super(query, undefined, undefined);
  }

  execute(): Promise<Config["execute"]> {
    return Promise.reject(new Error("A compiled statement runs through hotStatement, on a database handle."));
  }
}

/** A session that runs nothing: preparing a query on it captures what Drizzle compiled. */
class CompilingSession extends PgSession<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>> {
  prepareQuery<Config extends PreparedQueryConfig>(
    query: Query,
    fields: SelectedFieldsOrdered | undefined,
    _name: string | undefined,
    _isResponseInArrayMode: boolean,
    customResultMapper?: (rows: unknown[][]) => Config["execute"],
  ): PgPreparedQuery<Config> {
    return new CapturedQuery<Config>(query, fields, customResultMapper);
  }

  transaction<T>(): Promise<T> {
    return Promise.reject(new Error("The compiling database runs no transactions."));
  }
}

let compiling: Db | undefined;

/** Built like the handles `createDatabase` makes (default dialect, the schema), so statements compile alike. */
function compilingDatabase(): Db {
  if (!compiling) {
    const dialect = new PgDialect();
    const tables = extractTablesRelationalConfig<ExtractTablesWithRelations<Schema>>(
      schema,
      createTableRelationsHelpers,
    );
    compiling = new PgDatabase<PgQueryResultHKT, Schema>(dialect, new CompilingSession(dialect), {
      fullSchema: schema,
      schema: tables.tables,
      tableNamesMap: tables.tableNamesMap,
    });
  }
  return compiling;
}
