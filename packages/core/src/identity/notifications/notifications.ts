import type { Notification, PageQuery } from "@rubricon/contracts";
import { notifications } from "@rubricon/db";
import { and, asc, count, desc, eq, type SQL, sql } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, DEFAULT_PAGE_SIZE } from "../../kernel";

type NotificationRow = typeof notifications.$inferSelect;

export function toNotification(row: NotificationRow): Notification {
  return {
    id: row.id,
    object: "notification",
    kind: row.kind as Notification["kind"],
    title: row.title,
    body: row.body,
    data: row.data,
    link: row.link,
    read: row.readAt !== null,
    readAt: row.readAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * The caller's notifications, unread first and newest first within each, read from one index
 * (`user_id, read_rank, created_at desc, id desc`). A cursor is a notification id; reading one between two pages
 * moves it to the read part of the list.
 */
export async function listNotifications(ctx: CoreContext, actor: Actor, query: PageQuery) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const cursorId = query.starting_after ?? query.cursor ?? query.ending_before;
  const backwards = query.ending_before !== undefined;
  let keyset: SQL | undefined;
  if (cursorId !== undefined) {
    const [at] = await ctx.db
      .select({ id: notifications.id })
      .from(notifications)
      .where(and(eq(notifications.id, cursorId), eq(notifications.userId, actor.userId)))
      .limit(1);
    if (!at) {
      throw ApiError.invalid(
        query.starting_after ? "starting_after" : query.cursor ? "cursor" : "ending_before",
        `No item with id '${cursorId}' in this list; cursors are ids from an earlier page of the same list.`,
        "invalid_cursor",
      );
    }
    // The cursor's sort key is read in SQL, so no precision is lost to a JavaScript Date.
    const unread = sql`(select n.unread from notifications n where n.id = ${cursorId})`;
    const createdAt = sql`(select n.created_at from notifications n where n.id = ${cursorId})`;
    const columns = sql`(${notifications.unread}, ${notifications.createdAt}, ${notifications.id})`;
    keyset = backwards
      ? sql`${columns} > (${unread}, ${createdAt}, ${cursorId})`
      : sql`${columns} < (${unread}, ${createdAt}, ${cursorId})`;
  }
  const order = [notifications.unread, notifications.createdAt, notifications.id];
  const rows = await ctx.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.userId, actor.userId), keyset))
    .orderBy(...(backwards ? order.map((c) => asc(c)) : order.map((c) => desc(c))))
    .limit(limit + 1);
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  const [unread] = await ctx.db
    .select({ n: count() })
    .from(notifications)
    .where(and(eq(notifications.userId, actor.userId), eq(notifications.unread, true)));
  return {
    data: page.map(toNotification),
    hasMore,
    usedLegacyCursor: query.cursor !== undefined,
    unreadCount: unread?.n ?? 0,
  };
}

export async function markNotificationRead(
  ctx: CoreContext,
  actor: Actor,
  id: string,
): Promise<Notification> {
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .update(notifications)
    .set({
      unread: false,
      readAt: sql`coalesce(${notifications.readAt}, ${now.toISOString()}::timestamptz)`,
      updatedAt: now,
    })
    .where(and(eq(notifications.id, id), eq(notifications.userId, actor.userId)))
    .returning();
  if (!row) throw ApiError.notFound("notification_not_found", `No such notification: ${id}.`);
  return toNotification(row);
}

export async function markAllNotificationsRead(ctx: CoreContext, actor: Actor) {
  const now = ctx.clock.now();
  const rows = await ctx.db
    .update(notifications)
    .set({ unread: false, readAt: now, updatedAt: now })
    .where(and(eq(notifications.userId, actor.userId), eq(notifications.unread, true)))
    .returning({ id: notifications.id });
  return { object: "notifications_read" as const, updated: rows.length };
}
