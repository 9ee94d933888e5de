import type { PageQuery } from "@rubricon/contracts";
import {
  type Db,
  type DbOrTx,
  hotStatement,
  listTombstones,
  type Params,
  type Preparable,
} from "@rubricon/db";
import { and, asc, desc, eq, inArray, type Placeholder, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { PgColumn, PgTable, PreparedQueryConfig } from "drizzle-orm/pg-core";
import { ApiError } from "./errors";

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

/** Rows after (or before) the cursor in list order. */
function keysetCondition(
  table: ListTable,
  resource: string,
  where: SQL | undefined,
  cursorId: SQLWrapper | string,
  after: boolean,
): SQL {
  const sortKey = cursorSortKey(table, resource, where, cursorId);
  return after
    ? sql`(${table.updatedAt}, ${table.id}) < (${sortKey}, ${cursorId})`
    : sql`(${table.updatedAt}, ${table.id}) > (${sortKey}, ${cursorId})`;
}

/** The list order, newest first; a page read backwards (`ending_before`) is read oldest first and reversed. */
export function listOrder(columns: { updatedAt: SQLWrapper; id: SQLWrapper }, backwards: boolean) {
  return backwards ? [asc(columns.updatedAt), asc(columns.id)] : [desc(columns.updatedAt), desc(columns.id)];
}

/** One row when the cursor names an item of the list, live or deleted since (a tombstone); none otherwise. */
function cursorLookup(
  db: DbOrTx,
  table: ListTable,
  resource: string,
  where: SQL | undefined,
  cursorId: SQLWrapper | string,
) {
  return db
    .select({ found: sql<number>`1` })
    .from(table)
    .where(and(eq(table.id, cursorId), where))
    .unionAll(
      db
        .select({ found: sql<number>`1` })
        .from(listTombstones)
        .where(and(eq(listTombstones.id, cursorId), eq(listTombstones.resource, resource))),
    )
    .limit(1);
}

function invalidCursor(shape: PageShape): ApiError {
  return ApiError.invalid(
    shape.param,
    `No item with id '${shape.cursorId}' in this list; cursors are ids from an earlier page of the same list.`,
    "invalid_cursor",
  );
}

/**
 * A cursor that names no item of the list leaves the keyset comparing with NULL, so its page is empty: only an
 * empty page needs the extra read that tells "past the end" from "no such item".
 */
async function settlePage<Row>(
  shape: PageShape,
  rows: Row[],
  usedLegacyCursor: boolean,
  cursorFound: () => Promise<unknown[]>,
): Promise<Page<Row>> {
  if (rows.length === 0 && shape.cursorId !== undefined && (await cursorFound()).length === 0) {
    throw invalidCursor(shape);
  }
  const hasMore = rows.length > shape.limit;
  const page = rows.slice(0, shape.limit);
  if (shape.beforeId !== undefined) page.reverse();
  return { data: page, hasMore, usedLegacyCursor };
}

/**
 * The list helper of lists off the hot path. Order is `updatedAt` desc with `id` desc as tie-break on every
 * page; a cursor is an item id whose sort key is read in SQL from the live row or its tombstone.
 */
export async function paginate<Row>({ db, table, resource, where, query }: PaginateArgs): Promise<Page<Row>> {
  const shape = pageShape(query);
  const { cursorId } = shape;
  const keyset =
    cursorId === undefined
      ? undefined
      : keysetCondition(table, resource, where, cursorId, shape.afterId !== undefined);
  const rows = (await db
    .select()
    .from(table)
    .where(and(where, keyset))
    .orderBy(...listOrder(table, shape.beforeId !== undefined))
    .limit(shape.limit + 1)) as Row[];
  return settlePage(shape, rows, query.cursor !== undefined, () =>
    cursorLookup(db, table, resource, where, cursorId ?? ""),
  );
}

/** What a list statement's page read is given: where the page starts, its direction, and its size. */
export interface PageParts {
  /** Rows after (or before) the cursor; undefined on a first page. */
  keyset: SQL | undefined;
  /** Read oldest first (`ending_before`); the page is reversed afterwards. */
  backwards: boolean;
  /** The page size plus one, to tell whether there is more. */
  limit: Placeholder<"limit", number>;
}

interface PageValues {
  limit: number;
  cursor: string | undefined;
}

interface ListStatementSpec<Values, Row> {
  /** Prefix of the statements' names. */
  name: string;
  table: ListTable;
  resource: string;
  /** Which rows of `table` are in the list; it also decides whether a cursor names an item of the list. */
  where: ($: Params<Values>) => SQL | undefined;
  /** Reads a page in list order, newest first unless `backwards`, `keyset` and `limit` applied. */
  page: (db: Db, $: Params<Values>, page: PageParts) => Preparable<PreparedQueryConfig & { execute: Row[] }>;
}

/**
 * A list on the hot path: each page shape (first, after a cursor, before one) is a hot statement, compiled once
 * and then only bound and run.
 */
export function listStatement<Values extends object, Row>(spec: ListStatementSpec<Values, Row>) {
  const { table, resource } = spec;
  const pageStatement = (kind: "first" | "after" | "before") =>
    hotStatement(`${spec.name}_${kind}`, (db, $: Params<Values & PageValues>) => {
      const where = spec.where($);
      const keyset =
        kind === "first" ? undefined : keysetCondition(table, resource, where, $.cursor, kind === "after");
      return spec.page(db, $, { keyset, backwards: kind === "before", limit: $.limit });
    });
  const statements = {
    first: pageStatement("first"),
    after: pageStatement("after"),
    before: pageStatement("before"),
  };
  const cursorFound = hotStatement(`${spec.name}_cursor`, (db, $: Params<Values & { cursor: string }>) =>
    cursorLookup(db, table, resource, spec.where($), $.cursor),
  );
  return async (db: DbOrTx, values: Values, query: PageQuery): Promise<Page<Row>> => {
    const shape = pageShape(query);
    const { cursorId } = shape;
    const kind = shape.afterId !== undefined ? "after" : shape.beforeId !== undefined ? "before" : "first";
    const rows = await statements[kind](db, { ...values, limit: shape.limit + 1, cursor: cursorId });
    return settlePage(shape, rows, query.cursor !== undefined, () =>
      cursorFound(db, { ...values, cursor: cursorId ?? "" }),
    );
  };
}

/** Keeps a deleted row's sort key so cursors naming it go on working. Call in the deleting transaction. */
export async function recordTombstone(
  db: DbOrTx,
  table: ListTable,
  resource: string,
  ids: string[],
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .insert(listTombstones)
    .select(
      db
        .select({
          id: table.id,
          resource: sql<string>`${resource}`.as("resource"),
          sortUpdatedAt: table.updatedAt,
          deletedAt: sql<Date>`now()`.as("deleted_at"),
        })
        .from(table)
        .where(inArray(table.id, ids)),
    )
    .onConflictDoNothing({ target: listTombstones.id });
}
