import { DrizzleQueryError, getTableColumns, is, type Placeholder, sql } from "drizzle-orm";
import {
  PgColumn,
  type PgPreparedQuery,
  type PgTable,
  type PreparedQueryConfig,
  type SelectedFieldsOrdered,
} from "drizzle-orm/pg-core";
import type { Sql } from "postgres";
import { type Db, type DbOrTx, directClient } from "./client";
import {
  type CapturedQueryParts,
  captureQuery,
  decoderOf,
  isIdentityDecoder,
  placeholderOf,
  postgresJsClientOf,
  prepareOnSession,
  sessionOf,
  unaliased,
} from "./drizzle-internals";

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
    const session = sessionOf(handle);
    if (statement.mapRows) {
      const client = postgresJsClientOf(session);
      if (client) return runOnPostgresJs(client, statement, values);
    }
    return prepareOnSession(session, statement, statement.bind(values), name).execute();
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
  client: Sql,
  statement: Compiled<Values, Config>,
  values: Values,
): Promise<Config["execute"]> {
  const { sql: text } = statement.query;
  const params = statement.bind(values);
  const driver = directClient(client);
  let rows: unknown[][];
  try {
    // biome-ignore lint/suspicious/noExplicitAny: postgres.js types parameters per client generics
    rows = await driver.unsafe(text, params as any[], { prepare: true }).values();
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

interface Compiled<Values, Config extends PreparedQueryConfig> extends CapturedQueryParts<Config> {
  bind(values: Values): unknown[];
}

function compileStatement<Values extends object, Config extends PreparedQueryConfig>(
  name: string,
  build: (db: Db, $: Params<Values>) => Preparable<Config>,
): Compiled<Values, Config> {
  const captured = captureQuery(name, (db) => build(db, placeholderProxy<Values>()));
  const { query } = captured;
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

/**
 * Drizzle maps each row by walking its selection and asking, per value, what kind of field decodes it: on a list
 * page of evaluations about a tenth of the request's CPU. A flat selection (every field at the top of the row,
 * which is what hot statements select) is resolved once here into one decoder per column; values decode exactly
 * as Drizzle's mapping would (null stays null, everything else through the field's decoder). Nested selections,
 * whose objects may be nulled by an outer join, keep Drizzle's mapping.
 *
 * The mapping is compiled into one function that builds each row as an object literal: every row then starts with
 * its final shape, where setting keys one by one from an array went through V8's generic keyed stores, and a column
 * whose decoder changes nothing (text, booleans, most `sql` expressions) is taken as the driver gave it. The code is
 * made from the schema's own field names, never from data.
 */
function flatRowMapper<Rows>(fields: SelectedFieldsOrdered): ((rows: unknown[][]) => Rows) | undefined {
  if (fields.some(({ path }) => path.length !== 1)) return undefined;
  const keys = fields.map(({ path }) => path[0]!);
  if (keys.includes("__proto__")) return undefined;
  const decoders = fields.map(({ field }) => decoderOf(field));
  const entries = keys.map((key, i) => {
    const value = isIdentityDecoder(decoders[i]!)
      ? `raw[${i}]`
      : `(v = raw[${i}]) === null ? null : d[${i}].mapFromDriverValue(v)`;
    return `${JSON.stringify(key)}: ${value}`;
  });
  const mapRow = new Function(
    "d",
    `return function mapRow(raw) {\n  let v;\n  return { ${entries.join(",\n    ")} };\n};`,
  )(decoders) as (raw: unknown[]) => Record<string, unknown>;
  return (rows) => rows.map(mapRow) as Rows;
}

type Binder = (values: object, statement: string) => unknown;

/** How one compiled parameter takes its value; a placeholder bound to a column goes through its encoder. */
function binderOf(param: unknown): Binder {
  const placeholder = placeholderOf(param);
  if (!placeholder) return () => param;
  const { name, encoder } = placeholder;
  if (!encoder) return (values, statement) => placeholderValue(values, name, statement);
  return (values, statement) => {
    const value = placeholderValue(values, name, statement);
    return value === null || value === undefined ? null : encoder.mapToDriverValue(value);
  };
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
