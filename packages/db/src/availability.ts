import type postgres from "postgres";

/**
 * The database did not answer: a statement outlived its deadline (a hung server or network), a connection could
 * not be opened, or Postgres refused or ended it. The request that met it can be retried later; the API answers
 * 503 `database_unavailable` with `Retry-After`.
 */
export class DatabaseUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`The database is unavailable (${reason}).`);
    this.name = "DatabaseUnavailableError";
  }
}

/** postgres.js's own codes for a connection that failed or went away, and Node's socket errors. */
const CONNECTION_CODES = new Set([
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs of an unavailable server rather than a bad statement: class 08 (connection exception), 53300 (too many
 * connections), 57014 (cancelled: `statement_timeout`), 57P01-57P03 (shutting down, starting up).
 */
function unavailableState(code: string): boolean {
  return code.startsWith("08") || code === "53300" || code === "57014" || /^57P0[1-3]$/.test(code);
}

/** The reason when `err` (or an error it wraps, as Drizzle's `DrizzleQueryError` does) means the database is down. */
export function databaseUnavailableReason(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof DatabaseUnavailableError) return current.reason;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") {
      if (CONNECTION_CODES.has(code)) return code;
      if (/^[0-9A-Z]{5}$/.test(code) && unavailableState(code))
        return code === "57014" ? "statement_timeout" : code;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The pool (or a transaction's connection) with a client-side deadline on every statement, counted from when it is
 * first awaited (so the wait for a free connection counts): Postgres's `statement_timeout` cannot fire on a server
 * that stopped answering. A transaction waits for its connection within the same deadline. The query object is
 * handed back with its `then` hooked, as Drizzle calls `.values()` and other modifiers on it.
 */
export function withDeadlines(client: postgres.Sql, deadlineMs: number): postgres.Sql {
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === "unsafe") {
        return (query: string, args?: unknown[], options?: postgres.UnsafeQueryOptions) =>
          // biome-ignore lint/suspicious/noExplicitAny: postgres.js types parameters per client generics
          deadline(target.unsafe(query, args as any, options), deadlineMs);
      }
      if (prop === "begin") {
        return (...args: unknown[]) => {
          const callback = args.pop() as (sql: postgres.Sql) => unknown;
          const open = target.begin as (...a: unknown[]) => Promise<unknown>;
          return new Promise((resolve, reject) => {
            let entered = false;
            let expired = false;
            const timer = setTimeout(() => {
              if (entered) return;
              expired = true;
              reject(new DatabaseUnavailableError("no connection within the statement deadline"));
            }, deadlineMs);
            open
              .apply(target, [
                ...args,
                (sql: postgres.Sql) => {
                  entered = true;
                  clearTimeout(timer);
                  // The caller already had its answer: roll this late transaction back.
                  if (expired) throw new DatabaseUnavailableError("transaction started after its deadline");
                  const result = callback(withDeadlines(sql, deadlineMs));
                  // A statement that ran out of time: the rollback would wait on the same silent connection,
                  // so the caller is answered now and the rollback finishes (or fails) on its own.
                  Promise.resolve(result).catch((err: unknown) => {
                    if (!(err instanceof DatabaseUnavailableError) || expired) return;
                    expired = true;
                    reject(err);
                  });
                  return result;
                },
              ])
              .then(
                (value) => {
                  clearTimeout(timer);
                  resolve(value);
                },
                (err: unknown) => {
                  clearTimeout(timer);
                  if (!expired) reject(err);
                },
              );
          });
        };
      }
      if (prop === "savepoint") {
        return (...args: unknown[]) => {
          const callback = args.pop() as (sql: postgres.Sql) => unknown;
          const open = Reflect.get(target, prop) as (...a: unknown[]) => unknown;
          return open.apply(target, [
            ...args,
            (sql: postgres.Sql) => callback(withDeadlines(sql, deadlineMs)),
          ]);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}

function deadline<T extends PromiseLike<unknown>>(query: T, ms: number): T {
  const then = query.then;
  let settled: PromiseLike<unknown> | undefined;
  // biome-ignore lint/suspicious/noThenProperty: the query stays the thenable it was; this bounds its wait
  Object.defineProperty(query, "then", {
    configurable: true,
    value(onFulfilled?: (v: unknown) => unknown, onRejected?: (e: unknown) => unknown) {
      settled ??= new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new DatabaseUnavailableError(`no answer within ${ms} ms`)), ms);
        then.call(
          query,
          (value) => {
            clearTimeout(timer);
            resolve(value);
          },
          (error: unknown) => {
            clearTimeout(timer);
            reject(error);
          },
        );
      });
      return settled.then(onFulfilled, onRejected);
    },
  });
  return query;
}
