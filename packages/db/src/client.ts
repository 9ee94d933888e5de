import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { withDeadlines } from "./availability";
import * as schema from "./schema/index";

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Domain functions take either: a plain handle, or the transaction they are part of. */
export type DbOrTx = Db | Tx;

export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL; when absent the embedded PGlite database is used. */
  url?: string;
  /** PGlite data directory; absent means in memory. */
  dataDir?: string;
  /** Pool size for postgres.js. */
  maxConnections?: number;
  /**
   * Sees the text and parameters of every statement as it is sent, prepared or not, in transactions too (tests
   * use it to EXPLAIN what a route ran). Costs a stack trace per query on postgres.js: not for production.
   */
  onQuery?: QueryObserver;
  /**
   * Postgres only. True (the default): every statement with parameters is prepared on its connection once and
   * then only bound and executed, one round trip instead of two. False: statements are sent unnamed each time,
   * for poolers that hand each transaction a different server connection (PgBouncer in transaction mode),
   * where a statement prepared on one connection is unknown on the next.
   */
  prepareStatements?: boolean;
  /**
   * Told when each statement starts and ends, and when a transaction holds a connection: traces and pool gauges.
   * Sees the statement text only (with `$n` placeholders), never the values.
   */
  observe?: StatementObserver;
  /** Postgres only: how long opening a connection may take, TLS and authentication included. */
  connectTimeoutMs?: number;
  /**
   * Postgres only: the server cancels statements that run longer (`statement_timeout`), and the client stops
   * waiting for any statement (or a transaction's connection) a second after that, for a server that went silent.
   * Either way the caller gets a `DatabaseUnavailableError` (or a Postgres error that `databaseUnavailableReason`
   * names). Unset, there is no limit.
   */
  statementTimeoutMs?: number;
}

export type QueryObserver = (query: string, params: readonly unknown[]) => void;

/** Called as a statement starts; what it answers is called once the statement ends, with its error if any. */
export interface StatementObserver {
  statement(text: string, inTransaction: boolean): (error?: unknown) => void;
  /** A transaction took a connection; what it answers is called when the transaction ends. */
  transaction(): () => void;
}

export function createDatabase(opts: DatabaseOptions): Database {
  if (opts.url) {
    const prepare = opts.prepareStatements ?? true;
    const pool = postgres(opts.url, {
      max: opts.maxConnections ?? 10,
      onnotice: () => {},
      connection: {
        application_name: "rubricon",
        ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
      },
      ...(opts.connectTimeoutMs ? { connect_timeout: opts.connectTimeoutMs / 1000 } : {}),
      prepare,
      ...(opts.onQuery ? { debug: debugHook(opts.onQuery) } : {}),
    });
    const bounded = opts.statementTimeoutMs ? withDeadlines(pool, opts.statementTimeoutMs + 1_000) : pool;
    const client = opts.observe ? observing(bounded, opts.observe, false) : bounded;
    const db: Db = drizzlePostgres(prepare ? preparingEveryStatement(client) : client, { schema });
    databaseUrls.set(db, opts.url);
    return { db, kind: "postgres", close: () => pool.end({ timeout: 5 }) };
  }
  const release = opts.dataDir ? lockDataDir(opts.dataDir) : () => {};
  const client = new PGlite(opts.dataDir);
  if (opts.onQuery) observePglite(client, opts.onQuery);
  if (opts.observe) timePglite(client, opts.observe);
  const db: Db = drizzlePglite(client, { schema });
  return {
    db,
    kind: "pglite",
    close: async () => {
      try {
        await client.close();
      } finally {
        release();
      }
    },
  };
}

/**
 * `prepareStatements`: Drizzle asks postgres.js to prepare only queries built with `.prepare()` (and hot
 * statements), and postgres.js sends any other query with parameters as parse + describe, a wait, then bind +
 * execute: two round trips each time. Prepared, postgres.js keeps the statement per connection by its text and
 * sends only bind + execute from then on. So the client Drizzle is given asks to prepare every query with
 * parameters, on the pool and on each transaction's connection; queries without parameters stay on the simple
 * protocol (migrations hold several statements). The client's own `prepare: false` overrides any request.
 */
function preparingEveryStatement(client: postgres.Sql): postgres.Sql {
  const proxy = new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === "unsafe") {
        return (query: string, args?: unknown[], options?: postgres.UnsafeQueryOptions) =>
          // biome-ignore lint/suspicious/noExplicitAny: postgres.js types parameters per client generics
          target.unsafe(query, args as any, { ...options, prepare: true });
      }
      if (prop === "begin" || prop === "savepoint") {
        // Transactions run on a reserved connection handed to the callback; it prepares the same way.
        return (...args: unknown[]) => {
          const callback = args.pop() as (sql: postgres.Sql) => unknown;
          const open = Reflect.get(target, prop) as (...a: unknown[]) => unknown;
          return open.apply(target, [...args, (sql: postgres.Sql) => callback(preparingEveryStatement(sql))]);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  behindProxy.set(proxy, client);
  return proxy;
}

const behindProxy = new WeakMap<postgres.Sql, postgres.Sql>();

/**
 * The postgres.js client behind the one Drizzle was given, for callers that pass `prepare` themselves (hot
 * statements): the proxy's trap would make a function and copy the options on every call.
 */
export function directClient(client: postgres.Sql): postgres.Sql {
  return behindProxy.get(client) ?? client;
}

/**
 * The pool (or a transaction's connection) with every statement timed. postgres.js sends a query when it is first
 * awaited, so the end is hooked on its `then`; the query object itself is handed back, so `.values()` and the
 * other modifiers Drizzle calls still apply. Used only when traces or metrics are on.
 */
function observing(client: postgres.Sql, observer: StatementObserver, inTransaction: boolean): postgres.Sql {
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === "unsafe") {
        return (query: string, args?: unknown[], options?: postgres.UnsafeQueryOptions) =>
          // biome-ignore lint/suspicious/noExplicitAny: postgres.js types parameters per client generics
          endOnSettle(target.unsafe(query, args as any, options), observer.statement(query, inTransaction));
      }
      if (prop === "begin") {
        return async (...args: unknown[]) => {
          const callback = args.pop() as (sql: postgres.Sql) => unknown;
          const done = observer.transaction();
          try {
            return await (target.begin as (...a: unknown[]) => Promise<unknown>).apply(target, [
              ...args,
              (sql: postgres.Sql) => callback(observing(sql, observer, true)),
            ]);
          } finally {
            done();
          }
        };
      }
      if (prop === "savepoint") {
        return (...args: unknown[]) => {
          const callback = args.pop() as (sql: postgres.Sql) => unknown;
          const open = Reflect.get(target, prop) as (...a: unknown[]) => unknown;
          return open.apply(target, [
            ...args,
            (sql: postgres.Sql) => callback(observing(sql, observer, true)),
          ]);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}

function endOnSettle<T extends PromiseLike<unknown>>(query: T, end: (error?: unknown) => void): T {
  const then = query.then;
  let settled: PromiseLike<unknown> | undefined;
  // biome-ignore lint/suspicious/noThenProperty: the query stays the thenable it was; this hooks its settling
  Object.defineProperty(query, "then", {
    configurable: true,
    value(onFulfilled?: (v: unknown) => unknown, onRejected?: (e: unknown) => unknown) {
      settled ??= then.call(
        query,
        (value) => {
          end();
          return value;
        },
        (error: unknown) => {
          end(error);
          throw error;
        },
      );
      return settled.then(onFulfilled, onRejected);
    },
  });
  return query;
}

/** PGlite runs one statement at a time in this process; its `query` and `exec` are timed. */
function timePglite(client: PGlite, observer: StatementObserver): void {
  const timed =
    <A extends unknown[], R>(fn: (text: string, ...rest: A) => Promise<R>) =>
    async (text: string, ...rest: A): Promise<R> => {
      const end = observer.statement(text, false);
      try {
        const result = await fn(text, ...rest);
        end();
        return result;
      } catch (err) {
        end(err);
        throw err;
      }
    };
  client.query = timed(client.query.bind(client)) as PGlite["query"];
  client.exec = timed(client.exec.bind(client)) as PGlite["exec"];
}

function debugHook(onQuery: QueryObserver) {
  return (_connection: number, query: string, params: unknown[]) => onQuery(query, params);
}

/** PGlite has no statement hook: its `query`, and the one a transaction hands its callback, are wrapped. */
function observePglite(client: PGlite, onQuery: QueryObserver): void {
  const observed =
    (query: PGlite["query"]): PGlite["query"] =>
    (sql, params, options) => {
      onQuery(sql, params ?? []);
      return query(sql, params, options);
    };
  const transaction = client.transaction.bind(client);
  client.query = observed(client.query.bind(client));
  client.transaction = (callback) =>
    transaction((tx) => callback(Object.assign(Object.create(tx), { query: observed(tx.query.bind(tx)) })));
}

/** Raised when another live process holds the embedded database's data directory. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database at ${dataDir} is in use by process ${pid} (the server, the worker or an admin command). ` +
        "Stop that process first, or set DATABASE_URL to use Postgres, which many processes can share.",
    );
    this.name = "DataDirLockedError";
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * PGlite does not stop a second process opening the same data directory, and two openers corrupt it; so each
 * opener holds a pid lock file. A lock whose process has died is taken over.
 */
function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, "rubricon.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: "wx" });
      const release = () => {
        process.off("exit", release);
        try {
          if (readFileSync(file, "utf8") === String(process.pid)) unlinkSync(file);
        } catch {
          // already gone
        }
      };
      process.on("exit", release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = Number.parseInt(readFileSync(file, "utf8"), 10);
      if (Number.isInteger(holder) && holder > 0 && processAlive(holder))
        throw new DataDirLockedError(dataDir, holder);
      unlinkSync(file);
    }
  }
  throw new Error(`Could not lock the embedded database at ${dataDir}.`);
}

/** The committed SQL migrations; found beside the package whether run from source or from a bundle. */
export function migrationsFolder(): string {
  const candidates: string[] = [];
  try {
    const here = dirname(fileURLToPath(import.meta.url));
    // From source (src/../drizzle), or beside the bundles of the deployable folder (docs/deployment.md).
    candidates.push(resolve(here, "../drizzle"), join(here, "drizzle"));
  } catch {
    // bundled without a file URL: fall through to the walk from the working directory
  }
  let dir = process.cwd();
  for (let i = 0; i < 6; i++) {
    candidates.push(join(dir, "packages/db/drizzle"), join(dir, "node_modules/@rubricon/db/drizzle"));
    dir = dirname(dir);
  }
  const found = candidates.find((c) => existsSync(join(c, "meta/_journal.json")));
  if (!found) throw new Error("Rubricon migrations folder not found");
  return found;
}

/**
 * Any number of processes may start at once on an empty database (replicas, the worker, `migrate`): Postgres
 * migrations run under one session-level advisory lock, so one process applies them while the others wait and
 * then find them applied. Without it two runs race on `CREATE SCHEMA`/`CREATE TABLE` and one fails on a catalog
 * unique index. The lock lives on a connection of its own, without the pool's statement timeout: a migration may
 * legitimately run long.
 */
export const MIGRATION_LOCK_KEY = 7_352_019_286;

export async function migrateDatabase(database: Database): Promise<void> {
  const migrationsFolderPath = migrationsFolder();
  if (database.kind === "pglite") {
    // biome-ignore lint/suspicious/noExplicitAny: the two drivers' migrators take their own database types
    await migratePglite(database.db as any, {
      migrationsFolder: migrationsFolderPath,
    });
    return;
  }
  const url = databaseUrls.get(database.db);
  if (!url) throw new Error("migrateDatabase: not a database made by createDatabase");
  const session = postgres(url, {
    max: 1,
    onnotice: () => {},
    connection: { application_name: "rubricon-migrate" },
  });
  try {
    await session`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    try {
      // biome-ignore lint/suspicious/noExplicitAny: see above
      await migratePostgres(drizzlePostgres(session, { schema }) as any, {
        migrationsFolder: migrationsFolderPath,
      });
    } finally {
      await session`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.catch(() => {});
    }
  } finally {
    await session.end({ timeout: 5 });
  }
}

/** The URL each Postgres database was opened with, for the migration session. */
const databaseUrls = new WeakMap<Db, string>();

const processInstances = new Map<string, Promise<Database>>();

/**
 * One database per process and configuration: every caller shares the pool (or the PGlite instance, which
 * allows only one opener per data directory). Migrations run once, on first use.
 */
export function sharedDatabase(opts: DatabaseOptions & { migrate?: boolean }): Promise<Database> {
  const key = `${opts.url ?? ""}|${opts.dataDir ?? ""}|${opts.prepareStatements ?? true}|${opts.statementTimeoutMs ?? ""}`;
  let instance = processInstances.get(key);
  if (!instance) {
    instance = (async () => {
      const database = createDatabase(opts);
      if (opts.migrate) await migrateDatabase(database);
      return database;
    })();
    instance.catch(() => processInstances.delete(key));
    processInstances.set(key, instance);
  }
  return instance;
}
