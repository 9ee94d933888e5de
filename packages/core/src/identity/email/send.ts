import { type Db, emailOutbox } from "@rubricon/db";
import { and, asc, eq, lte } from "drizzle-orm";
import type { Transporter } from "nodemailer";
import type { Clock } from "../../kernel";

/** Waits after the 1st, 2nd, ... failed send; after the last the message is marked failed. */
export const EMAIL_RETRY_DELAYS_MS = [
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3600_000,
  6 * 3600_000,
  24 * 3600_000,
];
/** How long a claimed message is kept from other workers while it is being sent. */
const SEND_LEASE_MS = 2 * 60_000;

export interface EmailSenderOptions {
  db: Db;
  clock: Clock;
  /** `smtp://user:pass@host:port`; without it messages are written to `log` instead of sent. */
  smtpUrl: string | undefined;
  from: string;
  log: (line: string) => void;
  batch?: number;
}

export interface EmailPass {
  sent: number;
  logged: number;
  failed: string[];
}

/**
 * Sends the outbox's due messages. Each is claimed with SKIP LOCKED and leased before the send, so several
 * workers share the outbox and a worker that dies mid-send leaves the message to be retried once the lease ends.
 */
export class EmailSender {
  /** Made on the first message to send: the mail library is loaded only by processes that send mail. */
  private transport: Promise<Transporter> | undefined;

  constructor(private readonly opts: EmailSenderOptions) {}

  private transporter(smtpUrl: string): Promise<Transporter> {
    this.transport ??= import("nodemailer").then((m) => m.createTransport(smtpUrl));
    return this.transport;
  }

  async runPass(): Promise<EmailPass> {
    const { db, clock } = this.opts;
    const now = clock.now();
    const claimed = await db.transaction(async (tx) => {
      const due = await tx
        .select()
        .from(emailOutbox)
        .where(and(eq(emailOutbox.status, "pending"), lte(emailOutbox.nextAttemptAt, now)))
        .orderBy(asc(emailOutbox.nextAttemptAt))
        .limit(this.opts.batch ?? 20)
        .for("update", { skipLocked: true });
      for (const row of due) {
        await tx
          .update(emailOutbox)
          .set({ nextAttemptAt: new Date(now.getTime() + SEND_LEASE_MS) })
          .where(eq(emailOutbox.id, row.id));
      }
      return due;
    });
    const pass: EmailPass = { sent: 0, logged: 0, failed: [] };
    for (const row of claimed) {
      if (!this.opts.smtpUrl) {
        this.opts.log(`email to ${row.to}: ${row.subject}\n${row.text}`);
        await db
          .update(emailOutbox)
          .set({ status: "logged", sentAt: clock.now(), updatedAt: clock.now() })
          .where(eq(emailOutbox.id, row.id));
        pass.logged++;
        continue;
      }
      try {
        const transport = await this.transporter(this.opts.smtpUrl);
        await transport.sendMail({
          from: this.opts.from,
          to: row.to,
          subject: row.subject,
          text: row.text,
        });
        await db
          .update(emailOutbox)
          .set({ status: "sent", attempts: row.attempts + 1, sentAt: clock.now(), updatedAt: clock.now() })
          .where(eq(emailOutbox.id, row.id));
        pass.sent++;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const delay = EMAIL_RETRY_DELAYS_MS[row.attempts];
        const at = clock.now();
        await db
          .update(emailOutbox)
          .set({
            attempts: row.attempts + 1,
            lastError: message.slice(0, 500),
            status: delay === undefined ? "failed" : "pending",
            nextAttemptAt: new Date(at.getTime() + (delay ?? 0)),
            updatedAt: at,
          })
          .where(eq(emailOutbox.id, row.id));
        pass.failed.push(`${row.id}: ${message}`);
      }
    }
    return pass;
  }

  close(): void {
    void this.transport?.then((t) => t.close());
  }
}
