import type { SlidingWindow, WindowRequest, WindowState } from "../request/services";

/** Whole seconds until a slot frees, at least 1: the value of `Retry-After`. */
export function retryAfterSeconds(state: WindowState, nowMs: number): number {
  return Math.max(1, Math.ceil((state.resetMs - nowMs) / 1000));
}

interface Log {
  /** Accepted instants in ascending order from `head` on; the prefix before `head` has left the window. */
  at: number[];
  head: number;
}

const SWEEP_EVERY = 10_000;

/** The window in process memory, for a single instance (no REDIS_URL). */
export class MemorySlidingWindow implements SlidingWindow {
  private readonly logs = new Map<string, Log>();
  private hitsSinceSweep = 0;
  private longestWindowMs = 0;

  async hit(r: WindowRequest): Promise<WindowState> {
    return this.hitSync(r);
  }

  /** The same as `hit`, without the promise: what the benchmark measures. */
  hitSync({ key, limit, windowMs, nowMs, consume = true }: WindowRequest): WindowState {
    this.longestWindowMs = Math.max(this.longestWindowMs, windowMs);
    if (++this.hitsSinceSweep >= SWEEP_EVERY) this.sweep(nowMs);
    let log = this.logs.get(key);
    if (!log) {
      log = { at: [], head: 0 };
      if (consume) this.logs.set(key, log);
    }
    const cutoff = nowMs - windowMs;
    while (log.head < log.at.length && log.at[log.head]! <= cutoff) log.head++;
    if (log.head > 1024 && log.head * 2 > log.at.length) {
      log.at = log.at.slice(log.head);
      log.head = 0;
    }
    let count = log.at.length - log.head;
    const allowed = count < limit;
    if (allowed && consume) {
      insertSorted(log, nowMs);
      count++;
    }
    const oldest = count > 0 ? log.at[log.head]! : nowMs;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - count),
      resetMs: oldest + windowMs,
    };
  }

  /** Drops keys whose every entry has left the longest window in use, so idle teams cost nothing. */
  private sweep(nowMs: number): void {
    this.hitsSinceSweep = 0;
    for (const [key, log] of this.logs) {
      const newest = log.at[log.at.length - 1];
      if (newest === undefined || newest <= nowMs - this.longestWindowMs) this.logs.delete(key);
    }
  }

  /** Number of keys held: for tests of the sweep. */
  get size(): number {
    return this.logs.size;
  }

  async close(): Promise<void> {
    this.logs.clear();
  }
}

/** Appends in the common case; a clock that stepped back inserts in order so the head stays the oldest. */
function insertSorted(log: Log, t: number): void {
  const at = log.at;
  if (at.length === 0 || at[at.length - 1]! <= t) {
    at.push(t);
    return;
  }
  let lo = log.head;
  let hi = at.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (at[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  at.splice(lo, 0, t);
}
