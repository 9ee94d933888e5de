/**
 * What every process (web server, worker, admin commands) does before it serves: read `.env`, check that it can
 * write where it must, and on failure say the root cause in one line and exit non-zero.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Env } from "./env";
import { findRepoRoot } from "./env";

/**
 * Reads `.env` from the working directory, else from the repository root, into `process.env`. Variables already
 * set in the environment win (Node's own `process.loadEnvFile` rule), so a deployment's settings override the file.
 * Returns the file read, if any.
 */
export function loadDotEnv(cwd = process.cwd()): string | null {
  for (const dir of [cwd, findRepoRoot(cwd)]) {
    const file = join(dir, ".env");
    if (existsSync(file)) {
      try {
        process.loadEnvFile(file);
      } catch (err) {
        throw new StartupError(`reading ${file}`, err);
      }
      return file;
    }
  }
  return null;
}

/** A failure while starting, with the step that failed (e.g. "opening the database (DATABASE_URL)"). */
export class StartupError extends Error {
  constructor(
    readonly step: string,
    cause: unknown,
  ) {
    super(`${step}: ${rootCause(cause)}`, { cause });
    this.name = "StartupError";
  }
}

/** Runs `fn` as the named start-up step, so its failure names the step and the root cause. */
export async function startupStep<T>(step: string, fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StartupError) throw err;
    throw new StartupError(step, err);
  }
}

const WRAPPER = /^Failed query:/;
const CREDENTIALS = /(\w+:\/\/)[^/@\s]*@/g;

/**
 * The innermost error's message: drivers wrap the real cause (`connect ECONNREFUSED`, `database "x" does not
 * exist`) in errors that only name the query that failed. URLs lose their credentials; one line.
 */
export function rootCause(err: unknown): string {
  let e: unknown = err;
  const seen = new Set<unknown>();
  while (e instanceof Error && e.cause !== undefined && !seen.has(e)) {
    seen.add(e);
    e = e.cause;
  }
  let message = e instanceof Error ? e.message : String(e);
  if (WRAPPER.test(message) && err instanceof Error) message = err.message;
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const hint = code ? ERRNO_HINTS[code] : undefined;
  const line = message.replace(CREDENTIALS, "$1").split("\n", 1)[0]!.trim();
  return hint ? `${line} (${hint})` : line;
}

const ERRNO_HINTS: Record<string, string> = {
  ECONNREFUSED: "nothing listens there: is the service running and the port right?",
  ENOTFOUND: "the host name does not resolve",
  ETIMEDOUT: "the host did not answer in time",
  EROFS: "the file system is read-only",
  EACCES: "permission denied",
  EPERM: "not permitted",
};

/** One line for any failure at start; a `StartupError` already names its step. */
export function describeStartupError(err: unknown): string {
  return err instanceof StartupError ? err.message : rootCause(err);
}

/**
 * The directories this process writes to, checked at start rather than at the first upload: the local file
 * store (`DATA_DIR/files`, without S3) and the embedded database (`DATA_DIR/pglite`, without DATABASE_URL).
 */
export function checkWritable(env: Env): void {
  const dirs: [string, string][] = [];
  if (!env.s3) dirs.push([join(env.dataDir, "files"), "the file store (DATA_DIR/files)"]);
  if (!env.databaseUrl) dirs.push([join(env.dataDir, "pglite"), "the embedded database (DATA_DIR/pglite)"]);
  for (const [dir, what] of dirs) {
    try {
      mkdirSync(dir, { recursive: true });
      const probe = join(dir, `.write-check-${process.pid}`);
      writeFileSync(probe, "");
      rmSync(probe);
    } catch (err) {
      throw new StartupError(`${what} at ${dir} is not writable`, err);
    }
  }
}

/**
 * Runs a process's main function: a failure at start prints `<name> failed to start: <root cause>` on one line
 * and exits with status 1 (the process may hold timers or sockets that would keep it running otherwise).
 */
export function runMain(name: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${name} failed to start: ${describeStartupError(err)}\n`);
    process.exit(1);
  });
}
