import { channel } from "node:diagnostics_channel";

/**
 * Where an autouser run's time goes (browser start, context, navigation, each capture step, the judge, each write),
 * published on a diagnostics channel: `pnpm bench autousers` subscribes and tabulates it. With no subscriber a
 * phase costs one property read, so the worker pays nothing for it.
 */
export const RUN_PHASE_CHANNEL = "rubricon.autouser.phase";

export interface RunPhase {
  phase: string;
  ms: number;
}

const phases = channel(RUN_PHASE_CHANNEL);

/** Awaits `work` and, when someone listens, publishes how long it took as `phase`. */
export async function timedPhase<T>(phase: string, work: () => Promise<T>): Promise<T> {
  if (!phases.hasSubscribers) return work();
  const started = performance.now();
  try {
    return await work();
  } finally {
    phases.publish({ phase, ms: performance.now() - started } satisfies RunPhase);
  }
}
