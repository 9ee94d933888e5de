import type { PageQuery } from "@rubricon/contracts";
import { type DbOrTx, listTombstones, queryRows } from "@rubricon/db";
import {
  and,
  asc,
  desc,
  getTableColumns,
  type Placeholder,
  type SQL,
  type SQLWrapper,
  sql,
} from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { ApiError } from "../shared/errors";
import { preparedPerDb } from "../shared/prepared";

export const DEFAULT_PAGE_SIZE = 20;

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  /** True when the legacy `cursor` parameter was used, so the transport can flag it deprecated. */
  usedLegacyCursor: boolean;
}

interface PaginateArgs {
  db: DbOrTx;
  table: ListTable;
  /** Name under which deleted rows leave tombstones (see `recordTombstone`). */
  resource: string;
  where: SQL | undefined;
  /** Computed columns read with each row (e.g. correlated counts), saving a query per page. */
  extras?: Record<string, SQL>;
  query: PageQuery;
}

type ListTable = PgTable & { id: PgColumn; updatedAt: PgColumn };

interface PageShape {
  limit: number;
  afterId: string | undefined;
  beforeId: string | undefined;
  cursorId: string | undefined;
  /** The parameter that carried the cursor, named in a 400 when it names no item of the list. */
  param: "starting_after" | "cursor" | "ending_before";
}

function pageShape(query: PageQuery): PageShape {
  const afterId = query.starting_after ?? query.cursor;
  const beforeId = query.ending_before;
  return {
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
    afterId,
    beforeId,
    cursorId: afterId ?? beforeId,
    param: query.starting_after ? "starting_after" : query.cursor ? "cursor" : "ending_before",
  };
}

/** A cursor's sort key, read in SQL (so no precision is lost) from the live row in the list or its tombstone. */
function cursorSortKey(
  table: ListTable,
  resource: string,
  where: SQL | undefined,
  cursorId: SQLWrapper | string,
) {
  return sql`coalesce(
      (select ${table.updatedAt} from ${table} where ${table.id} = ${cursorId}${where ? sql` and ${where}` : sql``}),
      (select ${listTombstones.sortUpdatedAt} from ${listTombstones}
        where ${listTombstones.id} = ${cursorId} and ${listTombstones.resource} = ${resource}))`;
}

function keysetCondition(table: ListTable, sortKey: SQL, cursorId: SQLWrapper | string, after: boolean): SQL {
  return after
    ? sql`(${table.updatedAt}, ${table.id}) < (${sortKey}, ${cursorId})`
    : sql`(${table.updatedAt}, ${table.id}) > (${sortKey}, ${cursorId})`;
}

function pageOrder(table: ListTable, backwards: boolean) {
  return backwards ? [asc(table.updatedAt), asc(table.id)] : [desc(table.updatedAt), desc(table.id)];
}

/**
 * A cursor that names no item of the list leaves the keyset comparing with NULL, so its page is empty: only an
 * empty page needs the extra read that tells "past the end" from "no such item".
 */
async function settlePage<Row>(
  db: DbOrTx,
  table: ListTable,
  resource: string,
  where: SQL | undefined,
  shape: PageShape,
  rows: Row[],
  usedLegacyCursor: boolean,
): Promise<Page<Row>> {
  if (rows.length === 0 && shape.cursorId !== undefined) {
    const sortKey = cursorSortKey(table, resource, where, shape.cursorId);
    const [found] = await queryRows<{ k: unknown }>(db, sql`select ${sortKey} as k`);
    if (!found || found.k === null) {
      throw ApiError.invalid(
        shape.param,
        `No item with id '${shape.cursorId}' in this list; cursors are ids from an earlier page of the same list.`,
        "invalid_cursor",
      );
    }
  }
  const hasMore = rows.length > shape.limit;
  const page = rows.slice(0, shape.limit);
  if (shape.beforeId !== undefined) page.reverse();
  return { data: page, hasMore, usedLegacyCursor };
}

/**
 * The one list helper. Order is `updatedAt` desc with `id` desc as tie-break on every page; a cursor is an
 * item id whose sort key is read in SQL from the live row or its tombstone.
 */
export async function paginate<Row>({
  db,
  table,
  resource,
  where,
  extras,
  query,
}: PaginateArgs): Promise<Page<Row>> {
  const shape = pageShape(query);
  const keyset =
    shape.cursorId === undefined
      ? undefined
      : keysetCondition(
          table,
          cursorSortKey(table, resource, where, shape.cursorId),
          shape.cursorId,
          shape.afterId !== undefined,
        );
  const rows = (await (extras ? db.select({ ...getTableColumns(table), ...extras }) : db.select())
    .from(table)
    .where(and(where, keyset))
    .orderBy(...pageOrder(table, shape.beforeId !== undefined))
    .limit(shape.limit + 1)) as Row[];
  return settlePage(db, table, resource, where, shape, rows, query.cursor !== undefined);
}

interface PreparedListSpec {
  /** Prefix of the prepared statements' names. */
  name: string;
  table: ListTable;
  resource: string;
  /** The list's filter, its values taken by name from `value` (placeholders when preparing, values when not). */
  where: (value: (name: string) => Placeholder | string) => SQL;
  /**
   * Reads the page with what each row needs besides its columns, given the page query (filter, cursor, order and
   * limit applied) and whether it runs backwards; without it the page's rows are read as they are.
   */
  decorate?: (
    db: DbOrTx,
    page: PageQueryBuilder,
    backwards: boolean,
  ) => { prepare(name: string): Executable };
}

// biome-ignore lint/suspicious/noExplicitAny: the page query's exact builder type depends on the table
export type PageQueryBuilder = any;
interface Executable {
  execute(values: Record<string, unknown>): Promise<unknown>;
}

/**
 * `paginate` for a list whose filter has a fixed shape: each page shape (first, after a cursor, before one) is
 * built once per database handle and then only executed, as building the SQL costs about as much as running it.
 */
export function preparedList<Row>(spec: PreparedListSpec) {
  const { table, resource } = spec;
  const where = spec.where((name) => sql.placeholder(name));
  const cursor = sql.placeholder("cursor");
  const build = (db: DbOrTx, kind: "first" | "after" | "before") => {
    const keyset =
      kind === "first"
        ? undefined
        : keysetCondition(table, cursorSortKey(table, resource, where, cursor), cursor, kind === "after");
    const page = db
      .select()
      .from(table)
      .where(and(where, keyset))
      .orderBy(...pageOrder(table, kind === "before"))
      .limit(sql.placeholder("limit"));
    const query: { prepare(name: string): Executable } = spec.decorate
      ? spec.decorate(db, page, kind === "before")
      : page;
    return query.prepare(`${spec.name}_${kind}`);
  };
  const statements = preparedPerDb((db) => ({
    first: build(db, "first"),
    after: build(db, "after"),
    before: build(db, "before"),
  }));
  return async (db: DbOrTx, params: Record<string, string>, query: PageQuery): Promise<Page<Row>> => {
    const shape = pageShape(query);
    const kind = shape.afterId !== undefined ? "after" : shape.beforeId !== undefined ? "before" : "first";
    const rows = (await statements(db)[kind].execute({
      ...params,
      limit: shape.limit + 1,
      cursor: shape.cursorId,
    })) as Row[];
    const boundWhere = spec.where((name) => params[name]!);
    return settlePage(db, table, resource, boundWhere, shape, rows, query.cursor !== undefined);
  };
}

/** Keeps a deleted row's sort key so cursors naming it go on working. Call in the deleting transaction. */
export async function recordTombstone(
  db: DbOrTx,
  table: PgTable & { id: PgColumn; updatedAt: PgColumn },
  resource: string,
  ids: string[],
): Promise<void> {
  for (const id of ids) {
    await db.execute(sql`insert into ${listTombstones} (id, resource, sort_updated_at)
      select ${table.id}, ${resource}, ${table.updatedAt} from ${table} where ${table.id} = ${id}
      on conflict (id) do nothing`);
  }
}
