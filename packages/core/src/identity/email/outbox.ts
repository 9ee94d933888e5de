import { type DbOrTx, emailOutbox, newId } from "@rubricon/db";

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Queues a message in the caller's transaction: it goes out only if the change that caused it commits, and the
 * worker retries it until the mail server takes it, so a failed send loses nothing.
 */
export async function enqueueEmail(tx: DbOrTx, email: OutgoingEmail, now: Date): Promise<string> {
  const id = newId("outboundEmail");
  await tx.insert(emailOutbox).values({
    id,
    to: email.to,
    subject: email.subject,
    text: email.text,
    status: "pending",
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
  });
  return id;
}
