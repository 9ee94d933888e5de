import type { DbOrTx } from "@rubricon/db";

/**
 * A Drizzle prepared query is bound to the handle it was built on, so keep one per handle. Building the SQL
 * (entity checks, column walks) costs about as much as running a hot query, so fixed-shape queries on every
 * request are built once per handle and then only executed with placeholder values.
 */
export function preparedPerDb<Q>(build: (db: DbOrTx) => Q): (db: DbOrTx) => Q {
  const built = new WeakMap<DbOrTx, Q>();
  return (db) => {
    let query = built.get(db);
    if (query === undefined) {
      query = build(db);
      built.set(db, query);
    }
    return query;
  };
}
