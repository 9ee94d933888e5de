import { EmailSender } from "@rubricon/core";
import type { AppServices } from "../request/services";
import type { BackgroundLoop } from "./background-loop";

/** How soon after it is queued a message goes out, at most. */
export const EMAIL_POLL_INTERVAL_MS = 1000;

/** Sends queued mail through `SMTP_URL`, or writes it to the log when none is set. */
export function emailLoop(
  services: Pick<AppServices, "db" | "env" | "clock">,
  log: (line: string) => void = (line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`),
): BackgroundLoop {
  const sender = new EmailSender({
    db: services.db,
    clock: services.clock,
    smtpUrl: services.env.smtpUrl,
    from: services.env.emailFrom,
    log,
  });
  return {
    name: "email",
    intervalMs: EMAIL_POLL_INTERVAL_MS,
    async run() {
      const pass = await sender.runPass();
      const lines = [
        ...(pass.sent > 0 ? [`sent ${pass.sent} messages`] : []),
        ...pass.failed.map((f) => `send failed, will be retried: ${f}`),
      ];
      return lines.length > 0 ? lines.join("\n") : null;
    },
    close: () => sender.close(),
  };
}
