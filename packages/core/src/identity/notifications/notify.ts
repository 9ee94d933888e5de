import type { NotificationKind } from "@rubricon/contracts";
import { type DbOrTx, newId, notifications, users } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { enqueueEmail } from "../email/outbox";

export interface NotifyInput {
  /** Who is told. */
  userId: string;
  kind: NotificationKind;
  /** One line, shown in the bell and as the email subject. */
  title: string;
  body?: string | null;
  /** Ids the notification is about, e.g. `{ evaluationId, runId }`; strings only. */
  data?: Record<string, string>;
  /** Where the dashboard opens it, absolute. */
  link?: string | null;
  /** Also send it by email (through the outbox) to the user's address. */
  email?: boolean;
}

/**
 * Tells a user something, in the caller's transaction, so the notification exists exactly when the change it
 * reports does. Every feature that notifies calls this one function; for example, when an autouser run fails:
 *
 *   await notify(tx, { userId: evaluation.createdBy, kind: "autouser_run.failed", title: `A run of "${name}" failed`,
 *     body: error, data: { evaluationId, runId }, link: `${baseUrl}/evaluations/${evaluationId}` }, now);
 */
export async function notify(tx: DbOrTx, input: NotifyInput, now: Date): Promise<string> {
  const id = newId("notification");
  await tx.insert(notifications).values({
    id,
    userId: input.userId,
    kind: input.kind,
    title: input.title,
    body: input.body ?? null,
    data: input.data ?? {},
    link: input.link ?? null,
    unread: true,
    createdAt: now,
    updatedAt: now,
  });
  if (input.email) {
    const [user] = await tx
      .select({ email: users.email })
      .from(users)
      .where(eq(users.id, input.userId))
      .limit(1);
    if (user) {
      const text = [input.body, input.link].filter(Boolean).join("\n\n") || input.title;
      await enqueueEmail(tx, { to: user.email, subject: input.title, text }, now);
    }
  }
  return id;
}
