import type { PageQuery } from "@rubricon/contracts";
import { type DbOrTx, listTombstones, queryRows } from "@rubricon/db";
import { and, asc, desc, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { ApiError } from "../shared/errors";

export const DEFAULT_PAGE_SIZE = 20;

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  /** True when the legacy `cursor` parameter was used, so the transport can flag it deprecated. */
  usedLegacyCursor: boolean;
}

interface PaginateArgs {
  db: DbOrTx;
  table: PgTable & { id: PgColumn; updatedAt: PgColumn };
  /** Name under which deleted rows leave tombstones (see `recordTombstone`). */
  resource: string;
  where: SQL | undefined;
  /** Computed columns read with each row (e.g. correlated counts), saving a query per page. */
  extras?: Record<string, SQL>;
  query: PageQuery;
}

/**
 * The one list helper. Order is `updatedAt` desc with `id` desc as tie-break on every page; a cursor is an
 * item id whose sort key is read in SQL (so no precision is lost) from the live row or its tombstone.
 */
export async function paginate<Row>({
  db,
  table,
  resource,
  where,
  extras,
  query,
}: PaginateArgs): Promise<Page<Row>> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const afterId = query.starting_after ?? query.cursor;
  const beforeId = query.ending_before;
  const cursorId = afterId ?? beforeId;
  const param = query.starting_after ? "starting_after" : query.cursor ? "cursor" : "ending_before";

  let keyset: SQL | undefined;
  if (cursorId !== undefined) {
    const sortKey = sql`coalesce(
      (select ${table.updatedAt} from ${table} where ${table.id} = ${cursorId}${where ? sql` and ${where}` : sql``}),
      (select ${listTombstones.sortUpdatedAt} from ${listTombstones}
        where ${listTombstones.id} = ${cursorId} and ${listTombstones.resource} = ${resource}))`;
    const [found] = await queryRows<{ k: unknown }>(db, sql`select ${sortKey} as k`);
    if (!found || found.k === null) {
      throw ApiError.invalid(
        param,
        `No item with id '${cursorId}' in this list; cursors are ids from an earlier page of the same list.`,
        "invalid_cursor",
      );
    }
    keyset =
      afterId !== undefined
        ? sql`(${table.updatedAt}, ${table.id}) < (${sortKey}, ${cursorId})`
        : sql`(${table.updatedAt}, ${table.id}) > (${sortKey}, ${cursorId})`;
  }

  const backwards = beforeId !== undefined;
  const rows = (await (extras ? db.select({ ...getTableColumns(table), ...extras }) : db.select())
    .from(table)
    .where(and(where, keyset))
    .orderBy(...(backwards ? [asc(table.updatedAt), asc(table.id)] : [desc(table.updatedAt), desc(table.id)]))
    .limit(limit + 1)) as Row[];

  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  return { data: page, hasMore, usedLegacyCursor: query.cursor !== undefined };
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
