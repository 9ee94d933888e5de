import {
  IdParam,
  Notification,
  NotificationList,
  NotificationsReadAll,
  PageQueryShape,
  withCursorRules,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import { apiProcedure, router } from "../trpc/init";
import { toList } from "./list";

const tags = ["Notifications"];

export const notificationsRouter = router({
  // GET /notifications — the caller's notifications, unread first
  list: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/notifications",
        tags,
        summary: "List your notifications",
        description: "Unread first, newest first within each; `unread_count` counts all unread ones.",
      },
      sessionOnly: true,
    })
    .input(withCursorRules(z.object(PageQueryShape)))
    .output(NotificationList)
    .query(async ({ ctx, input }) => {
      const page = await core.listNotifications(ctx.core, ctx.actor, input);
      return { ...toList(ctx, page), unread_count: page.unreadCount };
    }),

  // POST /notifications/{id}/read — mark one read
  read: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/notifications/{id}/read",
        tags,
        summary: "Mark a notification read",
        description:
          "Marks one of the caller's notifications read; marking a read one again changes nothing.",
      },
      sessionOnly: true,
      idempotent: false,
    })
    .input(z.object({ id: IdParam }).strict())
    .output(Notification)
    .mutation(({ ctx, input }) => core.markNotificationRead(ctx.core, ctx.actor, input.id)),

  // POST /notifications/read-all — mark every unread one read
  readAll: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/notifications/read-all",
        tags,
        summary: "Mark all notifications read",
        description: "Marks every unread notification of the caller read and answers how many changed.",
      },
      sessionOnly: true,
      idempotent: false,
    })
    .input(z.object({}).strict())
    .output(NotificationsReadAll)
    .mutation(({ ctx }) => core.markAllNotificationsRead(ctx.core, ctx.actor)),
});
