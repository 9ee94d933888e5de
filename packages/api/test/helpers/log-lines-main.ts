/**
 * Writes `count` JSON lines in one turn through the process's logger, then ten more a moment later, and either
 * returns or calls `process.exit` (argv: count, "return" | "exit"). For `request-log-writes.test.ts`.
 */
import { configureLogging, log } from "../../src/observability/logger";

// As in the server, stdout becomes a non-blocking pipe once Node's own stream opens it.
process.stdout.write("");
const logger = configureLogging({ logLevel: "info", logFormat: "json" }, "lines");
const count = Number(process.argv[2]);
// Multi-byte text, so a write the pipe takes only part of can end inside a character.
for (let i = 0; i < count; i++) logger.info({ i, text: "é€".repeat(40) }, "line");
setTimeout(() => {
  for (let i = count; i < count + 10; i++) log().info({ i }, "later");
  if (process.argv[3] === "exit") process.exit(0);
}, 50);
