/**
 * The process's logger: JSON lines on stdout (pino), pretty-printed in development only. Every server and worker
 * path logs through it; fields never carry credentials (see `REDACT` and the request log, which names routes by
 * template).
 */
import { writeSync } from "node:fs";
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
  if (!pretty) return pino(options, linesPerTurn(pino.destination({ dest: 1, sync: false }), 1));
  try {
    return pino(options);
  } catch {
    // A bundler that hides pino-pretty from the transport's worker thread: JSON lines rather than no logs.
    return pino({ ...options, transport: undefined });
  }
}

type SonicBoom = ReturnType<typeof pino.destination>;

function writeAllSync(fd: number, text: string): void {
  for (let bytes = Buffer.from(text); bytes.length > 0; ) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (err) {
      // stdout is a non-blocking pipe whose reader is behind: wait for it, as pino's own exit flush does.
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN") return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/**
 * Hands the lines of one event-loop turn to `out` together, once the turn's I/O callbacks have run. Each write
 * `out` starts is a round trip through libuv's thread pool (queue, write on a worker thread, wake the loop, run
 * the callback); under load the responses finished in one turn each started one, and those writes were the
 * largest part of the request log's cost (in a CPU profile of `GET /evaluations/{id}` under load, 11% of the
 * main thread's busy time went to starting writes, the line itself 0.3%). A line waits at most for the end of
 * its turn, so an idle server still writes each line at once.
 */
function linesPerTurn(out: SonicBoom, fd: number): pino.DestinationStream {
  let pending = "";
  let scheduled = false;
  const release = () => {
    scheduled = false;
    const lines = pending;
    pending = "";
    if (lines !== "") out.write(lines);
  };
  // After `out`'s own exit hook (registered when it was made), which has written what `out` held: these are newer.
  process.once("exit", () => {
    writeAllSync(fd, pending);
    pending = "";
  });
  return {
    write(line: string) {
      pending += line;
      if (!scheduled) {
        scheduled = true;
        setImmediate(release);
      }
    },
    // `logger.flush()` (the worker before it exits): what this turn wrote, then what `out` holds.
    flush(cb?: (err?: Error) => void) {
      release();
      out.flush(cb);
    },
  } as pino.DestinationStream;
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
