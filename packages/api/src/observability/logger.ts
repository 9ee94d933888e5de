/**
 * The process's logger: JSON lines on stdout (pino), pretty-printed in development only. Every server and worker
 * path logs through it; fields never carry credentials (see `REDACT` and the request log, which names routes by
 * template).
 */
import { writeSync } from "node:fs";
import pino, { type Logger } from "pino";
import type { Env } from "../config/env";
import { serializeError } from "./safe-error";
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

let timeMs = Number.NaN;
let timeField = "";
/**
 * pino's `isoTime` (the same field, byte for byte), formatting the date once per millisecond: a busy server writes
 * several lines in one, and the ISO string was about a third of a request line's cost.
 */
function isoTimeOncePerMs(): string {
  const now = Date.now();
  if (now !== timeMs) {
    timeMs = now;
    timeField = `,"time":"${new Date(now).toISOString()}"`;
  }
  return timeField;
}

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
    serializers: { err: serializeError },
    timestamp: isoTimeOncePerMs,
    formatters: { level: (label) => ({ level: label }) },
    ...(pretty && !destination ? { transport: { target: "pino-pretty", options: { colorize: true } } } : {}),
  };
  if (destination) return pino(options, destination);
  // JSON lines leave once per event-loop turn, in one write to stdout (see `linesPerTurn`).
  if (!pretty) return pino(options, linesPerTurn(1));
  try {
    return pino(options);
  } catch {
    // A bundler that hides pino-pretty from the transport's worker thread: JSON lines rather than no logs.
    return pino({ ...options, transport: undefined });
  }
}

/** Waits without the event loop (at exit), as pino's own exit flush does when the pipe is full. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const RETRY_MS = 10;

/**
 * The lines written during one event-loop turn, written to `fd` together in one synchronous call once the turn's
 * I/O callbacks have run. A line waits at most for the end of its turn, so an idle server still writes each line
 * at once, and a busy one writes once per turn rather than once per request. pino's asynchronous destination
 * (SonicBoom) made each write a round trip through libuv's thread pool (queue, write on a worker thread, wake the
 * loop, run the callback), which under load cost several times the line itself; Node writes to stdout
 * synchronously on Linux pipes and files too. When the pipe is full (a non-blocking stdout whose reader is behind),
 * what it did not take is kept, in order, and retried shortly, so a slow reader never blocks the server; a closed
 * pipe (EPIPE) drops the lines, as pino does. What is left is written synchronously when the process exits.
 */
function linesPerTurn(fd: number): pino.DestinationStream {
  let pending = "";
  let backlog: Buffer | null = null;
  let scheduled = false;
  let broken = false;
  const writeOut = () => {
    scheduled = false;
    if (broken || (pending === "" && backlog === null)) return;
    // Most turns write a string as is; only a turn after a partial write joins bytes.
    const out: string | Buffer =
      backlog === null ? pending : pending === "" ? backlog : Buffer.concat([backlog, Buffer.from(pending)]);
    pending = "";
    backlog = null;
    try {
      const written = typeof out === "string" ? writeSync(fd, out) : writeSync(fd, out);
      const size = typeof out === "string" ? Buffer.byteLength(out) : out.length;
      if (written < size) backlog = (typeof out === "string" ? Buffer.from(out) : out).subarray(written);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN") {
        broken = true;
        return;
      }
      // Nothing was taken: all of it waits for the retry, ahead of what later turns add.
      backlog = typeof out === "string" ? Buffer.from(out) : out;
    }
    if (backlog !== null && !scheduled) {
      scheduled = true;
      setTimeout(writeOut, RETRY_MS);
    }
  };
  process.once("exit", () => {
    if (broken) return;
    let bytes = Buffer.concat([backlog ?? Buffer.alloc(0), Buffer.from(pending)]);
    while (bytes.length > 0) {
      try {
        bytes = bytes.subarray(writeSync(fd, bytes));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EAGAIN") return;
        pause(RETRY_MS);
      }
    }
  });
  return {
    write(line: string) {
      pending += line;
      if (!scheduled) {
        scheduled = true;
        setImmediate(writeOut);
      }
    },
    // `logger.flush()` (the worker before it exits): what is pending now, as far as the pipe takes it.
    flush(cb?: (err?: Error) => void) {
      writeOut();
      cb?.();
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
