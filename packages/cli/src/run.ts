import { RubriconError } from "@rubricon/sdk";
import { CommanderError } from "commander";
import { EXIT_API_ERROR, EXIT_OK, EXIT_USAGE, UsageError } from "./errors";
import { OAuthError } from "./oauth";
import { buildProgram } from "./program";

/** Runs one command line and answers the exit code: 0 done, 1 the API (or server) refused, 2 bad usage. */
export async function run(argv: string[]): Promise<number> {
  // A reader that goes away (`rubricon ... | head`) is not an error.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(EXIT_OK);
  });
  const program = buildProgram();
  const json = argv.includes("--json");
  try {
    await program.parseAsync(argv, { from: "user" });
    return EXIT_OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (
        err.code === "commander.helpDisplayed" ||
        err.code === "commander.version" ||
        err.code === "commander.help"
      ) {
        return EXIT_OK;
      }
      // Commander has already printed its message (unknown option, missing argument, ...).
      return EXIT_USAGE;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`Error: ${err.message}\n`);
      return EXIT_USAGE;
    }
    if (err instanceof RubriconError) {
      reportApiError(err, json);
      return EXIT_API_ERROR;
    }
    if (err instanceof OAuthError) {
      if (json)
        writeJsonError({
          type: "oauth_error",
          code: err.code,
          message: err.message,
          request_id: err.requestId,
        });
      else {
        process.stderr.write(`Error: ${err.message}\n`);
        if (err.requestId) process.stderr.write(`Request id: ${err.requestId}\n`);
      }
      return EXIT_API_ERROR;
    }
    process.stderr.write(`Error: ${(err as Error)?.message ?? String(err)}\n`);
    return EXIT_API_ERROR;
  }
}

function writeJsonError(error: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ error }, null, 2)}\n`);
}

function reportApiError(err: RubriconError, json: boolean): void {
  if (json) {
    writeJsonError({
      type: err.type,
      code: err.code,
      message: err.message,
      param: err.param,
      status: err.status,
      request_id: err.requestId,
      doc_url: err.docUrl,
    });
    return;
  }
  const lines = [`Error: ${err.message}`];
  if (err.code) lines.push(`Code: ${err.code}${err.status ? ` (HTTP ${err.status})` : ""}`);
  if (err.param) lines.push(`Parameter: ${err.param}`);
  if (err.requestId) lines.push(`Request id: ${err.requestId}`);
  if (err.docUrl) lines.push(`Docs: ${err.docUrl}`);
  process.stderr.write(`${lines.join("\n")}\n`);
}
