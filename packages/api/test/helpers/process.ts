/** A server or worker entry as its own OS process (tsx from this package, whatever the working directory). */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath, pathToFileURL } from "node:url";

const TSX = pathToFileURL(
  fileURLToPath(new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url)),
).href;
export const SERVER_MAIN = fileURLToPath(new URL("./server-main.ts", import.meta.url));
export const WORKER_MAIN = fileURLToPath(new URL("../../../../apps/worker/src/main.ts", import.meta.url));

export interface ChildProcess {
  child: ChildProcessWithoutNullStreams;
  /** Resolves with the exit code once every byte the process wrote has been read. */
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
  /** Waits until stdout or stderr contains `text` (or matches it). */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
}

export function startProcess(
  script: string,
  env: Record<string, string | undefined>,
  cwd?: string,
): ChildProcess {
  const base = { ...process.env };
  // The child reads only what the test gives it (and its .env), not the test runner's settings.
  for (const name of ["DATABASE_URL", "REDIS_URL", "NODE_ENV", "PORT", "DATA_DIR", "BASE_URL"])
    delete base[name];
  const child = spawn(process.execPath, ["--import", TSX, script], {
    env: { ...base, ...env },
    cwd,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    child,
    exited,
    stdout: () => out,
    stderr: () => err,
    async waitFor(text, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      const seen = () => {
        const all = out + err;
        return typeof text === "string" ? all.includes(text) : text.test(all);
      };
      while (!seen()) {
        if (child.exitCode !== null)
          throw new Error(`process exited (${child.exitCode}) before "${text}":\n${out}${err}`);
        if (Date.now() > deadline) throw new Error(`process never printed "${text}":\n${out}${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/** A loopback port nothing listens on now, for a child process to take. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}
