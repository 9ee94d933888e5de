/**
 * The thread that measures screenshots for `visual-pool.ts`: decoding a PNG and walking its pixels takes ~175 ms
 * of one core per capture, and on the worker's main thread that held up the run's own writes and stream events.
 */
import { parentPort } from "node:worker_threads";
import type { TextSample } from "../types";
import { screenshotMeasures } from "./visual";

export interface VisualJob {
  id: number;
  png: Uint8Array;
  viewportWidth: number;
  /** Text lines whose contrast is read on the pixels. */
  text?: readonly TextSample[];
}

parentPort?.on("message", (job: VisualJob) => {
  parentPort!.postMessage({ id: job.id, visual: screenshotMeasures(job.png, job.viewportWidth, job.text) });
});
