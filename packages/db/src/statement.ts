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
  isIdentityEncoder,
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
  const fields = captured.fields?.map(({ path, field }) =>
    path.length === 1 && is(field, PgColumn) ? { path, field: unaliased(field) } : { path, field },
  );
  return {
    query,
    bind: compileBinder(query.params, name),
    fields,
    mapRows:
      captured.mapRows ?? (fields && rowMapper<Config["execute"]>(fields, captured.joinsNotNullableMap)),
    joinsNotNullableMap: captured.joinsNotNullableMap,
  };
}

/**
 * Drizzle maps each row by walking its selection and asking, per value, what kind of field decodes it: on a list
 * page of evaluations about a tenth of the request's CPU. A hot statement's selection is resolved once here into one
 * decoder per column; values decode exactly as Drizzle's mapping would (null stays null, everything else through the
 * field's decoder), nested selections (`{ team: teams, role }`) into nested objects in the same key order. Drizzle
 * nulls a joined table's object when an outer join found no row; a statement with an outer join keeps Drizzle's
 * mapping, as inner joins never null one.
 *
 * The mapping is compiled into one function that builds each row as an object literal: every row then starts with
 * its final shape, where setting keys one by one from an array went through V8's generic keyed stores, and a column
 * whose decoder changes nothing (text, booleans, most `sql` expressions) is taken as the driver gave it. The code is
 * made from the schema's own field names, never from data.
 */
function rowMapper<Rows>(
  fields: SelectedFieldsOrdered,
  joinsNotNullableMap: Record<string, boolean> | undefined,
): ((rows: unknown[][]) => Rows) | undefined {
  const nested = fields.some(({ path }) => path.length > 1);
  if (nested && joinsNotNullableMap && Object.values(joinsNotNullableMap).some((notNull) => !notNull))
    return undefined;
  if (fields.some(({ path }) => path.length === 0 || path.includes("__proto__"))) return undefined;
  const decoders = fields.map(({ field }) => decoderOf(field));
  // The selection as a tree of keys in first-seen order (a Map keeps it), its leaves the columns' indexes.
  type Tree = Map<string, Tree | number>;
  const root: Tree = new Map();
  for (const [i, { path }] of fields.entries()) {
    let node = root;
    for (const key of path.slice(0, -1)) {
      let next = node.get(key);
      if (typeof next !== "object") {
        // A key first seen as a value and then as an object (no selection does this) keeps Drizzle's walk.
        if (next !== undefined) return undefined;
        next = new Map();
        node.set(key, next);
      }
      node = next;
    }
    const last = path.at(-1)!;
    if (typeof node.get(last) === "object") return undefined;
    node.set(last, i);
  }
  const columnValue = (i: number) =>
    isIdentityDecoder(decoders[i]!)
      ? `raw[${i}]`
      : `(v = raw[${i}]) === null ? null : d[${i}].mapFromDriverValue(v)`;
  const literal = (tree: Tree): string =>
    `{ ${[...tree].map(([key, node]) => `${JSON.stringify(key)}: ${typeof node === "number" ? columnValue(node) : literal(node)}`).join(", ")} }`;
  const mapRow = new Function("d", `return function mapRow(raw) {\n  let v;\n  return ${literal(root)};\n};`)(
    decoders,
  ) as (raw: unknown[]) => Record<string, unknown>;
  return (rows) => rows.map(mapRow) as Rows;
}

/**
 * The statement's parameters from a call's values, compiled once into one function that reads each placeholder by
 * its constant name (where a loop of closures reading names from variables went through V8's generic keyed loads, a
 * tenth of a create's CPU). A placeholder bound to a column goes through the column's encoder unless that changes
 * nothing; a value given as null or undefined is sent as null there, and a placeholder without a value is an error.
 */
function compileBinder(params: unknown[], statement: string): (values: object) => unknown[] {
  const constants: unknown[] = [];
  const encoders: { mapToDriverValue(value: unknown): unknown }[] = [];
  const entries = params.map((param, i) => {
    const placeholder = placeholderOf(param);
    if (!placeholder) {
      constants[i] = param;
      return `c[${i}]`;
    }
    const key = JSON.stringify(placeholder.name);
    const absent = `(${key} in v ? ${placeholder.encoder ? "null" : "x"} : missing(${key}))`;
    if (!placeholder.encoder || isIdentityEncoder(placeholder.encoder))
      return `(x = v[${key}]) === undefined ? ${absent} : x`;
    encoders[i] = placeholder.encoder;
    return `(x = v[${key}]) === undefined ? ${absent} : x === null ? null : e[${i}].mapToDriverValue(x)`;
  });
  const missing = (name: string) => {
    throw new Error(`hotStatement ${statement}: no value for placeholder "${name}"`);
  };
  return new Function(
    "c",
    "e",
    "missing",
    `return function bind(v) {\n  let x;\n  return [${entries.join(",\n    ")}];\n};`,
  )(constants, encoders, missing) as (values: object) => unknown[];
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
