import type { PageQuery } from "@rubricon/contracts";
import type { DbOrTx } from "@rubricon/db";
import { and, asc, desc, eq, gt, lt, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { ApiError, DEFAULT_PAGE_SIZE, type Page } from "../../kernel";

interface SeqPageArgs {
  db: DbOrTx;
  table: PgTable & { id: PgColumn; seq: PgColumn };
  /** The list's rows (filters included). */
  where: SQL | undefined;
  /** Where a cursor's row must be (the same team or endpoint), whatever the filters. */
  cursorScope: SQL;
  query: PageQuery;
}

/**
 * Lists of logs (events, deliveries), newest first by insertion sequence. Their rows never change position, so
 * a keyset on the sequence is exact: walking the pages returns every row once, even while new rows arrive.
 */
export async function seqPaginate<Row>({
  db,
  table,
  where,
  cursorScope,
  query,
}: SeqPageArgs): Promise<Page<Row>> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const afterId = query.starting_after ?? query.cursor;
  const beforeId = query.ending_before;
  const cursorId = afterId ?? beforeId;
  let keyset: SQL | undefined;
  if (cursorId !== undefined) {
    const [found] = await db
      .select({ seq: table.seq })
      .from(table)
      .where(and(eq(table.id, cursorId), cursorScope))
      .limit(1);
    if (!found) {
      const param = query.starting_after ? "starting_after" : query.cursor ? "cursor" : "ending_before";
      throw ApiError.invalid(
        param,
        `No item with id '${cursorId}' in this list; cursors are ids from an earlier page of the same list.`,
        "invalid_cursor",
      );
    }
    keyset = afterId !== undefined ? lt(table.seq, found.seq) : gt(table.seq, found.seq);
  }
  const backwards = beforeId !== undefined;
  const rows = (await db
    .select()
    .from(table)
    .where(and(where, keyset))
    .orderBy(backwards ? asc(table.seq) : desc(table.seq))
    .limit(limit + 1)) as Row[];
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  return { data: page, hasMore, usedLegacyCursor: query.cursor !== undefined };
}
