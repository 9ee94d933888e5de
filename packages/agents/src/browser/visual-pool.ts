import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { TextSample } from "../types";
import { type ScreenshotMeasures, screenshotMeasures } from "./visual";
import type { VisualJob } from "./visual-thread";

/**
 * Screenshot measures on a small pool of reused threads, so the worker's main thread keeps serving the run's
 * writes and stream events while a PNG is decoded. The numbers are `screenshotMeasures`' own: the threads run
 * the same function on the same bytes. Where no thread can be started, the measures are taken in this thread.
 */

/** The thread's entry in the deployable folder, beside the bundle that starts it or one folder up from a chunk. */
const THREAD_FILE = "visual-thread.mjs";

/** A core is left to the main thread and Chromium; two threads at most, since a capture needs ~175 ms of one. */
const MAX_THREADS = Math.max(1, Math.min(2, availableParallelism() - 1));

interface Pending {
  resolve: (visual: ScreenshotMeasures | null) => void;
  job: VisualJob;
}

interface Thread {
  worker: Worker;
  busy: number;
}

/**
 * How to start a thread, or null where none can be: in the deployable folder the thread is its own entry
 * (`visual-thread.mjs`, beside the bundle or one folder up from a chunk). Run from the TypeScript sources the
 * measures stay in this thread unless a test names a thread source (`useScreenshotThreadSource`): resolving a
 * TypeScript loader here would make Next's build trace it into the deployable folder.
 */
function threadSpec(): { source: string; eval: boolean } | null {
  const here = import.meta.url;
  // Paths, not `new URL(…, import.meta.url)`: bundlers (Next's among them) take that form for an asset to resolve
  // at build time, and the thread's file only exists beside the deployable bundle.
  if (!here.startsWith("file:") || here.endsWith(".ts")) return null;
  const dir = dirname(fileURLToPath(here));
  for (const folder of [dir, dirname(dir)]) {
    const path = join(folder, THREAD_FILE);
    if (existsSync(path)) return { source: path, eval: false };
  }
  return null;
}

let spec: ReturnType<typeof threadSpec> | undefined;

/** Starts the pool's threads from `source`, the code of a module that loads the thread (tests from the sources). */
export function useScreenshotThreadSource(source: string): void {
  spec = { source, eval: true };
  broken = false;
}
/** Set when a thread died before its first answer: it would again, so the measures stay in this thread. */
let broken = false;
const threads: Thread[] = [];
const pending = new Map<number, Pending & { thread: Thread }>();
let nextId = 1;

function startThread(): Thread | null {
  spec ??= threadSpec();
  if (!spec || broken) return null;
  const worker = new Worker(spec.source, { eval: spec.eval, name: "screenshot measures" });
  const thread: Thread = { worker, busy: 0 };
  let answered = false;
  worker.unref();
  worker.on("message", (answer: { id: number; visual: ScreenshotMeasures | null }) => {
    answered = true;
    const job = pending.get(answer.id);
    if (!job) return;
    pending.delete(answer.id);
    if (--thread.busy === 0) worker.unref();
    job.resolve(answer.visual);
  });
  // A thread that fails to start or dies: its jobs are measured here instead and the pool starts afresh.
  const fail = (err?: unknown) => {
    if (!answered && err instanceof Error) broken = true;
    const index = threads.indexOf(thread);
    if (index >= 0) threads.splice(index, 1);
    for (const [id, job] of pending) {
      if (job.thread !== thread) continue;
      pending.delete(id);
      job.resolve(screenshotMeasures(job.job.png, job.job.viewportWidth, job.job.text));
    }
  };
  worker.on("error", fail);
  worker.on("exit", fail);
  threads.push(thread);
  return thread;
}

function pickThread(): Thread | null {
  const idle = threads.find((t) => t.busy === 0);
  if (idle) return idle;
  if (threads.length < MAX_THREADS) {
    const started = startThread();
    if (started) return started;
  }
  return threads.reduce<Thread | null>((least, t) => (!least || t.busy < least.busy ? t : least), null);
}

/** `screenshotMeasures(png, viewportWidth, text)`, computed on a pooled thread. */
export function measureScreenshot(
  png: Uint8Array,
  viewportWidth: number,
  text?: readonly TextSample[],
): Promise<ScreenshotMeasures | null> {
  const thread = pickThread();
  if (!thread) return Promise.resolve(screenshotMeasures(png, viewportWidth, text));
  const job: VisualJob = { id: nextId++, png, viewportWidth, text };
  return new Promise((resolve) => {
    pending.set(job.id, { resolve, job, thread });
    // Referenced while it works, so a process waiting only on a measure does not exit under it.
    if (thread.busy++ === 0) thread.worker.ref();
    thread.worker.postMessage(job);
  });
}

/** Ends the pool's threads (tests; a process that exits needs nothing, the threads hold it open only when busy). */
export async function closeScreenshotThreads(): Promise<void> {
  const all = threads.splice(0);
  await Promise.all(all.map((t) => t.worker.terminate()));
}

/** How many threads the pool has started and holds (tests). */
export function screenshotThreadCount(): number {
  return threads.length;
}
