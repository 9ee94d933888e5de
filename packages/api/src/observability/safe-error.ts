/**
 * Errors as log lines may show them. A failed statement's error carries its text and values (Drizzle's message is
 * "Failed query: … params: …"; postgres.js keeps `query` and `parameters`; Postgres's `detail` quotes the
 * conflicting row): names, URLs, share tokens, key hashes. A log line names the statement by its operation and
 * first table and the error by its SQLSTATE and constraint, never a value.
 */
import { format } from "node:util";
import { databaseUnavailableReason } from "@rubricon/db";

const OPERATION =
  /^\s*(?:with\b[\s\S]*?\)\s*)?(select|insert|update|delete|begin|commit|rollback|savepoint|release|set|create|alter|drop|explain|lock|notify|listen)\b/i;
const TABLE = /\b(?:from|into|update|join)\s+"?([a-z_][a-z0-9_]*)"?/i;

/** The statement's operation and first table, for the span's name: never its values. */
export function describeStatement(text: string): { operation: string; table: string | undefined } {
  const operation = (OPERATION.exec(text)?.[1] ?? "query").toUpperCase();
  return { operation, table: TABLE.exec(text)?.[1] };
}

interface DbErrorFacts {
  statement: string | undefined;
  code: string | undefined;
  constraint: string | undefined;
  table: string | undefined;
}

const MAX_MESSAGE = 300;

function statementOf(text: unknown): string | undefined {
  if (typeof text !== "string") return undefined;
  const { operation, table } = describeStatement(text);
  return table ? `${operation} ${table}` : operation;
}

/** The facts of the first database error in `err`'s cause chain, or undefined when none is one. */
function dbFacts(err: unknown): DbErrorFacts | undefined {
  let statement: string | undefined;
  let found = false;
  let code: string | undefined;
  let constraint: string | undefined;
  let table: string | undefined;
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const e = current as Error & Record<string, unknown>;
    if (typeof e.query === "string" || Array.isArray(e.params) || Array.isArray(e.parameters)) {
      found = true;
      statement ??= statementOf(e.query);
    }
    if (e.name === "PostgresError" || typeof e.severity === "string") {
      found = true;
      code ??= typeof e.code === "string" ? e.code : undefined;
      constraint ??= typeof e.constraint_name === "string" ? e.constraint_name : undefined;
      table ??= typeof e.table_name === "string" ? e.table_name : undefined;
    }
    current = e.cause;
  }
  return found ? { statement, code, constraint, table } : undefined;
}

/** A one-line message for the error that holds no statement values. */
export function safeErrorMessage(err: unknown): string {
  const facts = dbFacts(err);
  const unavailable = databaseUnavailableReason(err);
  if (facts) {
    return [
      "database error",
      facts.code ? `SQLSTATE ${facts.code}` : undefined,
      facts.statement ? `in ${facts.statement}` : undefined,
      facts.constraint ? `(constraint ${facts.constraint})` : undefined,
      unavailable ? `: database unavailable (${unavailable})` : undefined,
    ]
      .filter(Boolean)
      .join(" ");
  }
  const message = err instanceof Error ? err.message : String(err);
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
}

/** pino's `err` serializer: type, a safe message, the stack's frames (not its first line, which repeats the message). */
export function serializeError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) {
    return typeof err === "object" && err !== null ? { ...(err as object) } : { message: String(err) };
  }
  const facts = dbFacts(err);
  const frames = (err.stack ?? "").split("\n").filter((l) => /^\s+at /.test(l));
  const code = (err as { code?: unknown }).code;
  return {
    type: err.name,
    message: safeErrorMessage(err),
    ...(facts
      ? {
          ...(facts.statement ? { statement: facts.statement } : {}),
          ...(facts.code ? { code: facts.code } : {}),
          ...(facts.constraint ? { constraint: facts.constraint } : {}),
          ...(facts.table ? { table: facts.table } : {}),
        }
      : typeof code === "string"
        ? { code }
        : {}),
    ...(frames.length > 0 ? { stack: frames.slice(0, 12).join("\n") } : {}),
  };
}

const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

type ConsoleMethod = "log" | "info" | "warn" | "error" | "debug";
const LEVEL: Record<ConsoleMethod, "info" | "warn" | "error" | "debug"> = {
  log: "info",
  info: "info",
  warn: "warn",
  error: "error",
  debug: "debug",
};

/**
 * Every line the process writes goes through the logger as JSON: libraries' and the framework's own `console`
 * output (Next's start banner, a library's failure) would otherwise be plain text among the JSON lines, and a
 * logged error object would print its statement's values. An error argument becomes the line's `err`.
 */
export function routeConsoleTo(
  logger: Record<"info" | "warn" | "error" | "debug", (obj: object, msg: string) => void>,
): void {
  for (const method of Object.keys(LEVEL) as ConsoleMethod[]) {
    console[method] = (...args: unknown[]) => {
      const error = args.find((a) => a instanceof Error);
      const rest = args.filter((a) => a !== error).map((a) => (a instanceof Error ? safeErrorMessage(a) : a));
      // Next's banner and similar carry terminal colours, which mean nothing in a JSON line.
      const msg = format(...rest)
        .replace(ANSI_COLOUR, "")
        .trim();
      logger[LEVEL[method]](error ? { err: error, source: "console" } : { source: "console" }, msg);
    };
  }
}
