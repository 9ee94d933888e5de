/**
 * The process's logger: JSON lines on stdout (pino), pretty-printed in development only. Every server and worker
 * path logs through it; fields never carry credentials (see `REDACT` and the request log, which names routes by
 * template).
 */
import pino, { type Logger } from "pino";
import type { Env } from "../config/env";
import { currentTraceIds } from "./tracing";

export type { Logger } from "pino";

/** Belt and braces: whatever a caller passes under these names is replaced before it is written. */
const REDACT = [
  "password",
  "token",
  "apiKey",
  "authorization",
  "cookie",
  "secret",
  "*.password",
  "*.token",
  "*.apiKey",
  "*.authorization",
  "*.cookie",
  "*.secret",
  "headers.authorization",
  "headers.cookie",
];

function build(
  level: string,
  pretty: boolean,
  name: string,
  destination?: pino.DestinationStream,
  traced = false,
): Logger {
  const options: pino.LoggerOptions = {
    // With traces on, a line written inside a span (a request, a run, a delivery) names its trace and span.
    ...(traced ? { mixin: () => currentTraceIds() ?? {} } : {}),
    name,
    level,
    base: { pid: process.pid },
    redact: { paths: REDACT, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    ...(pretty && !destination ? { transport: { target: "pino-pretty", options: { colorize: true } } } : {}),
  };
  if (destination) return pino(options, destination);
  // JSON lines go out asynchronously: the lines written while one write is under way leave together in the next,
  // instead of one blocking write call per request (a tenth of a hot request's CPU, beside its two database round
  // trips and its answer). What is still buffered is written synchronously when the process exits.
  if (!pretty) return pino(options, pino.destination({ dest: 1, sync: false }));
  try {
    return pino(options);
  } catch {
    // A bundler that hides pino-pretty from the transport's worker thread: JSON lines rather than no logs.
    return pino({ ...options, transport: undefined });
  }
}

/**
 * For the request log: its line is built from fixed fields holding only strings and numbers (never a caller's
 * object), so only its own keys are checked. The wildcard paths above look inside every field of every line,
 * which cost more than the rest of writing the line (about 8 of 15 µs, measured on the development machine).
 */
const REDACT_TOP = REDACT.filter((path) => !path.includes("."));

function requestChild(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: REDACT_TOP, censor: "[redacted]" } });
}

// Until a process configures it (tests never do), only warnings and worse are written.
let current: Logger = build(process.env.NODE_ENV === "test" ? "silent" : "warn", false, "rubricon");
let requests: Logger = requestChild(current);

/** Sets the process's logger from the settings: `LOG_LEVEL`, JSON or (development) pretty output. */
export function configureLogging(
  env: Pick<Env, "logLevel" | "logFormat">,
  name: string,
  destination?: pino.DestinationStream,
  traced = false,
): Logger {
  current = build(env.logLevel, env.logFormat === "pretty", name, destination, traced);
  requests = requestChild(current);
  return current;
}

/** The process's logger, as configured at start. */
export function log(): Logger {
  return current;
}

/** The request log's logger: the process's, checking only the line's own keys for secrets. */
export function requestLog(): Logger {
  return requests;
}
