import {
  Column,
  createTableRelationsHelpers,
  type ExtractTablesWithRelations,
  entityKind,
  extractTablesRelationalConfig,
  is,
  noopDecoder,
  noopEncoder,
  Param,
  Placeholder,
  type Query,
  SQL,
  Subquery,
} from "drizzle-orm";
import {
  PgColumn,
  PgDatabase,
  PgDialect,
  PgPreparedQuery,
  type PgQueryResultHKT,
  PgSession,
  type PreparedQueryConfig,
  type SelectedFieldsOrdered,
} from "drizzle-orm/pg-core";
import { PostgresJsSession } from "drizzle-orm/postgres-js";
import type { Sql } from "postgres";
import type { Db, DbOrTx, Schema } from "./client";
import * as schema from "./schema/index";

/**
 * The one place that touches Drizzle's private API. Hot statements (`statement.ts`) compile a query once and run
 * it on any handle, the pool or a transaction, and map its rows without Drizzle's per-row walk; Drizzle offers no
 * public way to do any of that (its prepared queries are bound to the handle they were built on). What is relied
 * on, each marked below:
 *
 * 1. `handle._.session`, and `PgSession.prepareQuery(query, fields, name, arrayMode, mapper)` run on it.
 * 2. `PostgresJsSession.client`: the postgres.js client a session (or transaction) sends on.
 * 3. `PgPreparedQuery.joinsNotNullableMap`: set by a select's `prepare` on the query it prepared, read by its row
 *    mapping to null the objects of absent outer joins.
 * 4. A query builder's `prepare(name)` hands its session the compiled query, its ordered fields (select, `returning`)
 *    or its own row mapper (relational queries): a session subclass that runs nothing captures them.
 * 5. `PgSession` and `PgPreparedQuery` can be subclassed (constructors `(dialect)` and `(query, cache, metadata)`),
 *    and `new PgDatabase(dialect, session, { fullSchema, schema, tableNamesMap })` builds a handle on such a session.
 * 6. `SQL.decoder` (and `Subquery._.sql.decoder`): how a selected expression's value is decoded.
 * 7. A column read through an alias or subquery is a proxy with only a `get` trap over the column, so a copy of its
 *    own properties is the column itself.
 * 8. A compiled query's `params` hold each placeholder as the `Placeholder`, or as a `Param` whose `value` is the
 *    placeholder and whose `encoder` is the column it is compared with or stored in.
 *
 * `drizzle-internals.test.ts` pins the installed version and checks each of these, so an upgrade fails there,
 * naming this file, before any statement misbehaves.
 */
export const PINNED_DRIZZLE_VERSION = "0.45.4";

/** What a query builder's `prepare` handed its session (4). */
export interface CapturedQueryParts<Config extends PreparedQueryConfig> {
  query: Query;
  fields: SelectedFieldsOrdered | undefined;
  mapRows: ((rows: unknown[][]) => Config["execute"]) | undefined;
  joinsNotNullableMap: Record<string, boolean> | undefined;
}

/** The session a handle runs its queries on (1). */
export function sessionOf(handle: DbOrTx): PgSession {
  return handle._.session as unknown as PgSession;
}

/** The postgres.js client a session sends on, or undefined on another driver (2). */
export function postgresJsClientOf(session: PgSession): Sql | undefined {
  return is(session, PostgresJsSession) ? (session as unknown as { client: Sql }).client : undefined;
}

/** A compiled query, with the values bound, as a prepared query of the session, mapping rows as captured (1, 3). */
export function prepareOnSession<Config extends PreparedQueryConfig>(
  session: PgSession,
  parts: CapturedQueryParts<Config>,
  params: unknown[],
  name: string,
): PgPreparedQuery<Config> {
  const query = session.prepareQuery<Config>(
    { ...parts.query, params },
    parts.fields,
    name,
    true,
    parts.mapRows,
  );
  if (parts.joinsNotNullableMap) Object.assign(query, { joinsNotNullableMap: parts.joinsNotNullableMap });
  return query;
}

/**
 * What Drizzle compiles for the query `build` makes on a database that runs nothing (4, 5). `build` must build it
 * on the database it is given.
 */
export function captureQuery<Config extends PreparedQueryConfig>(
  name: string,
  build: (db: Db) => { prepare(name: string): PgPreparedQuery<Config> },
): CapturedQueryParts<Config> {
  const captured = build(compilingDatabase()).prepare(name);
  if (!(captured instanceof CapturedQuery))
    throw new Error(`hotStatement ${name}: build it on the db it is given`);
  return {
    query: captured.getQuery(),
    fields: captured.fields,
    mapRows: captured.mapRows,
    joinsNotNullableMap: captured.joinsNotNullableMap,
  };
}

export interface Decoder {
  mapFromDriverValue(value: unknown): unknown;
}

/** The decoder Drizzle's row mapping picks for a selected field (6). */
export function decoderOf(field: SelectedFieldsOrdered[number]["field"]): Decoder {
  const of = (expression: SQL) => (expression as SQL & { decoder: Decoder }).decoder;
  if (is(field, PgColumn)) return field;
  if (is(field, SQL)) return of(field);
  if (is(field, SQL.Aliased)) return of(field.sql);
  if (is(field, Subquery)) return of(field._.sql);
  throw new Error("hotStatement: a selected field that is neither a column, SQL nor a subquery");
}

/**
 * Whether a decoder hands every value back unchanged (a column type without its own decoding, such as text or
 * boolean, or a `sql` expression's default decoder), so a row mapping may take the value as the driver gave it.
 */
export function isIdentityDecoder(decoder: Decoder): boolean {
  return (
    decoder.mapFromDriverValue === Column.prototype.mapFromDriverValue ||
    decoder.mapFromDriverValue === noopDecoder.mapFromDriverValue
  );
}

/** Whether an encoder hands every value to the driver unchanged (a column type without its own encoding). */
export function isIdentityEncoder(encoder: { mapToDriverValue(value: unknown): unknown }): boolean {
  return (
    encoder.mapToDriverValue === Column.prototype.mapToDriverValue ||
    encoder.mapToDriverValue === noopEncoder.mapToDriverValue
  );
}

/** The column behind any alias or subquery proxies, as a plain copy (7). */
export function unaliased(column: PgColumn): PgColumn {
  return Object.create(Object.getPrototypeOf(column), Object.getOwnPropertyDescriptors(column));
}

export interface CompiledPlaceholder {
  name: string;
  /** The column that encodes the value, when the placeholder stands for one. */
  encoder: { mapToDriverValue(value: unknown): unknown } | undefined;
}

/** The placeholder a compiled parameter stands for, or undefined for a value compiled into the query (8). */
export function placeholderOf(param: unknown): CompiledPlaceholder | undefined {
  if (is(param, Placeholder)) return { name: param.name, encoder: undefined };
  if (is(param, Param) && is(param.value, Placeholder))
    return { name: param.value.name, encoder: param.encoder };
  return undefined;
}

/** The compiled form of a query built on the compiling database: its SQL and how Drizzle maps its rows. */
class CapturedQuery<Config extends PreparedQueryConfig> extends PgPreparedQuery<Config> {
  static override readonly [entityKind]: string = "RubriconCapturedQuery";
  /** Set by Drizzle's select on the query it prepares (3). */
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
